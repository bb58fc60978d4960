// Package workload describes the jobs a simulated cluster runs, and makes them:
// loaders for real traces (SWIM's Facebook TSV traces, ParseSWIM) and
// generators for the papers' synthetic workloads (GenerateShuffleWatcher).
//
// A Job carries everything the engine and the policies need to know before it
// runs: its submit time, user and pool, bytes at each stage (input, shuffle,
// output), task counts, and a CPU Profile. Sources that lack a quantity
// (traces name no users, no reduce counts, no CPU costs) fill it by a rule
// that is documented where it is applied and is seeded where it is random, so
// the same inputs and seed always give the same jobs.
package workload
