package workload

// DefaultBytesPerReduce is the bytes (shuffle + output) per reduce task in
// SWIM's reduce-count rule when an option leaves it 0: 64 MiB. SWIM's
// GenerateReplayScript takes it as the "amount of data per reduce task in
// bytes" argument, and its README says it "should be roughly the same as HDFS
// block size, e.g., 67108864", the value of its own example run.
const DefaultBytesPerReduce = 64 << 20

// MaxMapsPerJob bounds a job's map count. The largest FB-2010 job at full
// scale with 64 MiB blocks needs 1.3 million maps; a count beyond this bound
// comes from a corrupt size or a tiny block size and would exhaust memory in
// the engine, so loaders report it as an error instead.
const MaxMapsPerJob = 1 << 24

// MapCount is the number of maps of a job reading inputBytes in blocks of
// blockBytes: ceil(inputBytes / blockBytes), at least 1. A job with no input
// still runs one (empty) map so that its shuffle and reduces have a source;
// SWIM's replay does the same by raising every input to at least 64 MiB.
// blockBytes must be positive; otherwise it returns 1.
func MapCount(inputBytes, blockBytes int64) int {
	if blockBytes <= 0 || inputBytes <= 0 {
		return 1
	}
	n := inputBytes / blockBytes
	if inputBytes%blockBytes != 0 {
		n++
	}
	return int(n)
}

// SWIMReduceCount is SWIM's reduce-count rule (GenerateReplayScript.java):
// round((shuffle + output) / bytesPerReduce), at least 1; where that exceeds
// the target cluster's node count, targetNodes/5 instead (at least 1). The cap
// is SWIM's, non-monotone as it is: a job just under targetNodes reduces keeps
// them, a larger one drops to a fifth of the nodes. Halves round up, as Java's
// Math.round does. bytesPerReduce <= 0 means DefaultBytesPerReduce; targetNodes
// <= 0 disables the cap.
func SWIMReduceCount(shuffleBytes, outputBytes, bytesPerReduce int64, targetNodes int) int {
	if bytesPerReduce <= 0 {
		bytesPerReduce = DefaultBytesPerReduce
	}
	if shuffleBytes < 0 {
		shuffleBytes = 0
	}
	if outputBytes < 0 {
		outputBytes = 0
	}
	// Unsigned: the sum of two int64s cannot overflow a uint64.
	sum := uint64(shuffleBytes) + uint64(outputBytes)
	b := uint64(bytesPerReduce)
	n := sum / b
	if rem := sum % b; rem >= b-rem {
		n++
	}
	if n < 1 {
		n = 1
	}
	if targetNodes > 0 && n > uint64(targetNodes) {
		n = uint64(targetNodes / 5)
		if n < 1 {
			n = 1
		}
	}
	return int(n)
}
