package sim

// Guard budgets, for tests that need a run stopped in seconds.
var (
	RunawayEvents  = &runawayEvents
	LivelockEvents = &livelockEvents
	ProjectAfter   = &projectAfter
)

// ReferenceSolves makes engines re-solve the network from scratch at every
// change, the exact mode's reference.
var ReferenceSolves = &referenceSolves

// NoParking makes engines queue every heartbeat (park.go).
var NoParking = &noParking
