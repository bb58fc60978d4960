package sim

// Guard budgets, for tests that need a run stopped in seconds.
var (
	RunawayEvents  = &runawayEvents
	LivelockEvents = &livelockEvents
	ProjectAfter   = &projectAfter
)
