package sched

import (
	"fmt"
	"strings"
)

// PoolSettings are a cluster's pools as its operator configures them (the
// Fair Scheduler's allocation file: pools with minimum shares and weights,
// and preemption). They belong to the cluster, not to one policy: a
// comparison of policies on one cluster runs every policy that has pools
// with the same ones, and says which policies cannot honour them.
type PoolSettings struct {
	Pools      []PoolConfig     `yaml:"pools"`
	Preemption PreemptionParams `yaml:"preemption"`
	Limits     JobLimits        `yaml:"job_limits"`
	// SizeBasedWeight is the scheduler's weighing of jobs by demand
	// (FairParams.SizeBasedWeight).
	SizeBasedWeight string `yaml:"size_based_weight"`
}

// Empty reports whether s configures nothing: no pool, no preemption, no
// running-job limit and no size-based weight.
func (s PoolSettings) Empty() bool {
	return len(s.Pools) == 0 && s.Preemption == (PreemptionParams{}) && s.Limits.Empty() && s.SizeBasedWeight == ""
}

// PoolTaker is a policy's parameter struct that takes the cluster's pools.
// UsePools puts them in and returns, one line each, what of them the
// policy cannot apply (empty when it applies all); an error when they
// conflict with the policy's own parameters.
type PoolTaker interface {
	UsePools(PoolSettings) (notApplied []string, err error)
}

// UsePools gives the fair order the cluster's pools and preemption, all of
// which it applies (Fair Scheduler paper, section 3).
func (p *FairParams) UsePools(s PoolSettings) ([]string, error) {
	if len(p.Pools) > 0 || p.Preemption != (PreemptionParams{}) || !p.Limits.Empty() || p.SizeBasedWeight != "" {
		return nil, fmt.Errorf("pools: given both as the cluster's pools and in the policy's own parameters; give them once")
	}
	p.Pools, p.Preemption, p.Limits, p.SizeBasedWeight = s.Pools, s.Preemption, s.Limits, s.SizeBasedWeight
	return nil, nil
}

// UsePools gives DRF the pools' weights (weighted DRF, Ghodsi et al.
// section 4.3). DRF has no minimum shares, no per-pool FIFO mode and no
// preemption: each configured one is named as not applied.
func (p *DRFParams) UsePools(s PoolSettings) ([]string, error) {
	var notes []string
	var mins, fifo []string
	for _, pc := range s.Pools {
		if pc.Weight != 0 {
			if _, ok := p.Weights[pc.Name]; ok {
				return nil, fmt.Errorf("weights.%s: pool %s's weight is given both as the cluster's pools and in the policy's own weights; give it once", pc.Name, pc.Name)
			}
			if p.Weights == nil {
				p.Weights = map[string]float64{}
			}
			p.Weights[pc.Name] = pc.Weight
		}
		if pc.MinMaps != 0 || pc.MinReduces != 0 || pc.MinShare != 0 {
			mins = append(mins, pc.Name)
		}
		if strings.EqualFold(pc.Mode, "fifo") {
			fifo = append(fifo, pc.Name)
		}
	}
	if len(mins) > 0 {
		notes = append(notes, fmt.Sprintf("drf has no minimum shares: those of %s do not apply", strings.Join(mins, ", ")))
	}
	if len(fifo) > 0 {
		notes = append(notes, fmt.Sprintf("drf orders a pool's jobs by dominant share: mode fifo of %s does not apply", strings.Join(fifo, ", ")))
	}
	if s.Preemption.Enabled {
		notes = append(notes, "drf does not preempt: preemption does not apply")
	}
	if !s.Limits.Empty() {
		notes = append(notes, "drf has no running-job limits: job_limits do not apply")
	}
	if w := s.SizeBasedWeight; w != "" && w != "none" {
		notes = append(notes, "drf weighs a pool's jobs by dominant share: size_based_weight does not apply")
	}
	return notes, nil
}
