package sched

import "maps"

// Effective parameters: each policy's parameter struct says, by its
// Effective method, the values a policy built from it uses, every default
// filled, keyed by the parameters' YAML names. A run records them
// (summary.json's config.policy.params), so that its result says what
// produced it.

// Effective returns the pools (weight and mode defaulted) and the
// preemption settings (timeouts defaulted).
func (p FairParams) Effective() map[string]any {
	pools := make([]map[string]any, len(p.Pools))
	for i, pc := range p.Pools {
		w := pc.Weight
		if w == 0 {
			w = 1
		}
		mode := pc.Mode
		if mode == "" {
			mode = "fair"
		}
		pools[i] = map[string]any{"name": pc.Name, "min_maps": pc.MinMaps, "min_reduces": pc.MinReduces,
			"min_share": pc.MinShare, "weight": w, "mode": mode}
		// A pool's own timeouts only where set, so that a run without
		// them records what it always has.
		if pc.MinShareTimeoutS > 0 {
			pools[i]["min_share_timeout_s"] = pc.MinShareTimeoutS
		}
		if pc.FairShareTimeoutS > 0 {
			pools[i]["fair_share_timeout_s"] = pc.FairShareTimeoutS
		}
		if pc.FairShareThreshold > 0 {
			pools[i]["fair_share_threshold"] = pc.FairShareThreshold
		}
		if !pc.preemptable() {
			pools[i]["allow_preemption_from"] = false
		}
		for k, v := range map[string]int{"max_maps": pc.MaxMaps, "max_reduces": pc.MaxReduces, "max_share": pc.MaxShare} {
			if v > 0 {
				pools[i][k] = v
			}
		}
	}
	pr := p.Preemption.withDefaults()
	pre := map[string]any{"enabled": pr.Enabled, "min_share_timeout_s": pr.MinShareTimeoutS, "fair_share_timeout_s": pr.FairShareTimeoutS}
	if pr.FairShareThreshold != 1 {
		pre["fair_share_threshold"] = pr.FairShareThreshold // the paper's 1 is not recorded, as before
	}
	if pr.ClusterUtilizationThreshold > 0 {
		pre["cluster_utilization_threshold"] = pr.ClusterUtilizationThreshold
	}
	m := map[string]any{"pools": pools, "preemption": pre}
	if w := p.SizeBasedWeight; w != "" && w != "none" {
		m["size_based_weight"] = w
	}
	if d := p.PoolDefaults; d != (PoolConfig{}) {
		def := map[string]any{}
		if d.Mode != "" {
			def["mode"] = d.Mode
		}
		for k, v := range map[string]int{"max_maps": d.MaxMaps, "max_reduces": d.MaxReduces, "max_share": d.MaxShare} {
			if v > 0 {
				def[k] = v
			}
		}
		m["pool_defaults"] = def
	}
	if len(p.QueueCaps) > 0 {
		caps := make([]map[string]any, len(p.QueueCaps))
		for i, q := range p.QueueCaps {
			caps[i] = map[string]any{"queue": q.Path}
			for k, v := range map[string]int{"max_maps": q.MaxMaps, "max_reduces": q.MaxReduces, "max_share": q.MaxShare} {
				if v > 0 {
					caps[i][k] = v
				}
			}
		}
		m["queue_caps"] = caps
	}
	if !p.Limits.Empty() {
		// Only where set, so that a run without limits records what it
		// always has.
		lim := map[string]any{}
		for k, v := range map[string]map[string]int{"pools": p.Limits.Pools, "users": p.Limits.Users} {
			if len(v) > 0 {
				lim[k] = v
			}
		}
		for k, v := range map[string]int{"pool_default": p.Limits.PoolDefault, "user_default": p.Limits.UserDefault} {
			if v > 0 {
				lim[k] = v
			}
		}
		m["job_limits"] = lim
	}
	return m
}

// Effective returns delay scheduling's waits and IO-rate biasing.
func (p DelayParams) Effective() map[string]any {
	minMaps := p.IOMinMaps
	if minMaps == 0 {
		minMaps = DefaultIOMinMaps
	}
	return map[string]any{
		"t1_s": orDefault(p.T1S, DefaultDelayT1S), "t2_s": orDefault(p.T2S, DefaultDelayT2S),
		"io_rate_biasing": p.IORateBiasing, "cpu_bound_t1_s": orDefault(p.CPUBoundT1S, DefaultCPUBoundT1S),
		"cpu_bound_t2_s":    orDefault(p.CPUBoundT2S, DefaultCPUBoundT2S),
		"io_bound_mb_per_s": orDefault(p.IOBoundMBPerS, DefaultIOBoundMBPerS), "io_min_maps": minMaps,
		"reset_on_launch": p.ResetOnLaunch,
	}
}

// Effective returns the pools' weights (1 for a pool not listed).
func (p DRFParams) Effective() map[string]any {
	w := map[string]float64{}
	maps.Copy(w, p.Weights)
	return map[string]any{"weights": w}
}

// Effective returns ShuffleWatcher's thresholds.
func (p SWParams) Effective() map[string]any {
	return map[string]any{
		"nw_saturation_threshold":  orDefault(p.NWSaturationThreshold, DefaultNWSaturationThreshold),
		"map_completion_threshold": orDefault(p.MapCompletionThreshold, DefaultMapCompletionThreshold),
		"starvation_window_s":      orDefault(p.StarvationWindowS, DefaultStarvationWindowS),
		"known_ratios":             p.KnownRatios,
	}
}

// Effective returns NAS's own parameters.
func (p NASParams) Effective() map[string]any {
	skipsOn := DefaultNASSkipsOn
	if p.SkipsOn != nil {
		skipsOn = *p.SkipsOn
	}
	oi := func(v *int, d int) int {
		if v == nil {
			return d
		}
		return *v
	}
	return map[string]any{
		"congestion_threshold": orDefault(p.CongestionThreshold, DefaultNASCongestionThreshold),
		"map_skips":            oi(p.MapSkips, DefaultNASMapSkips), "reduce_skips": oi(p.ReduceSkips, DefaultNASReduceSkips),
		"wait_s": orDefault(p.WaitS, 0), "light_mb": orDefault(p.LightMB, DefaultNASLightMB),
		"heavy_mb": orDefault(p.HeavyMB, DefaultNASHeavyMB), "small_input_mb": orDefault(p.SmallInputMB, DefaultNASSmallInputMB),
		"recurring_share":          orDefault(p.RecurringShare, 0),
		"map_completion_threshold": orDefault(p.MapCompletionThreshold, 0),
		"threshold_period_s":       orDefault(p.ThresholdPeriodS, DefaultNASThresholdPeriodS),
		"skips_on":                 skipsOn,
	}
}

// Effective returns TD's parameters; default_amt_s is absent when jobs'
// own profiles give amt(j).
func (p TDParams) Effective() map[string]any {
	c := p.config()
	out := map[string]any{
		"l": c.l, "h": c.h, "connection_limit": int(c.conn), "hot_threshold": int(c.hot),
		"amt_by_kind_s": maps.Clone(p.AMTByKindS), "demand_share": c.demandShare, "allow_off_rack": c.offRack,
	}
	if out["amt_by_kind_s"] == nil {
		out["amt_by_kind_s"] = map[string]float64{}
	}
	if p.DefaultAMTS != nil {
		out["default_amt_s"] = *p.DefaultAMTS
	}
	return out
}

// merged joins parameter sets that share one YAML mapping.
func merged(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// Effective returns the delay policy's pools, preemption and waits.
func (p FairDelayParams) Effective() map[string]any {
	return merged(p.FairParams.Effective(), p.DelayParams.Effective())
}

// Effective returns sw-fair's (and its ablations') parameters.
func (p SWFairParams) Effective() map[string]any {
	return merged(p.FairParams.Effective(), p.SWParams.Effective())
}

// Effective returns sw-relaxed's parameters.
func (p SWRelaxedParams) Effective() map[string]any {
	return merged(p.FairParams.Effective(), p.SWParams.Effective(),
		map[string]any{"relaxed_fairness_s": orDefault(p.RelaxedFairnessS, DefaultRelaxedFairnessS)})
}

// Effective returns sw-delay's parameters.
func (p SWDelayParams) Effective() map[string]any {
	return merged(p.FairParams.Effective(), p.DelayParams.Effective(), p.SWParams.Effective())
}

// Effective returns sw-drf's parameters.
func (p SWDRFParams) Effective() map[string]any {
	return merged(p.DRFParams.Effective(), p.SWParams.Effective())
}

// Effective returns the nas policies' parameters.
func (p NASFairParams) Effective() map[string]any {
	return merged(p.FairParams.Effective(), p.NASParams.Effective())
}
