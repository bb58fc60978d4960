// Package probe holds the instruments the experiments put around a policy
// inside the engine: policy wrappers (harness.PassThrough) that watch the
// decisions and the tasks they launch, as any other observer does, and
// count what a diagnostic column reads (map times by where a map reads,
// hotspots of non-local reads, map-slot use, each job's traffic by cause)
// or, for HeartbeatOnly, hold offers to a node's heartbeats. A run puts
// one around its policy through harness.Run.Probe.
package probe

import "github.com/mrsched/mrsched/experiment/harness"

// The instruments; the compiler checks each is a full wrapper.
var _ = []harness.Wrapper{(*MapTimer)(nil), (*HotWatch)(nil), (*SlotUse)(nil), (*HeartbeatOnly)(nil), (*Traffic)(nil)}
