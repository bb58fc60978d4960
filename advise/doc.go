// Package advise answers "which policy, with which thresholds, and what
// does it gain?" for one scenario. It lists candidates (every policy with
// the thresholds its paper leaves to the operator, over documented
// ranges, defaults always among them), searches them by successive
// halving on common random numbers (every candidate at a stage runs on the
// same seeds, and comparisons are paired differences by seed), and states
// the decision with 95% intervals: the best candidate, its gain against
// the policy the cluster runs now, and every candidate within noise of it.
// It also writes the configuration lines that put the choice into effect
// on Hadoop 1 and YARN.
//
// The search runs simulations through an Evaluator, so that tests can
// drive it with a synthetic one of known noise; the command (mrsched
// advise) gives it one that runs scenarios. docs/advise.md explains the
// method and the statistics.
package advise
