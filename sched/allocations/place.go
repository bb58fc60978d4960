package allocations

import (
	"fmt"
	"strings"
)

// rules reads the rules of parent, a queuePlacementPolicy or a rule that
// nests them.
func (c *Config) rules(parent *elem) ([]Rule, error) {
	var out []Rule
	for _, k := range parent.kids {
		if k.name != "rule" {
			c.notModelled(k, "")
			continue
		}
		r := Rule{Name: k.attrs["name"], Create: k.attrs["create"] != "false", Queue: k.attrs["queue"], Line: k.line}
		switch r.Name {
		case "specified", "user", "default", "reject":
		case "primaryGroup", "secondaryGroupExistingQueue":
			c.warnf(k.line, "placement rule %s: traces record no groups, so the rule never places a job", r.Name)
		case "nestedUserQueue":
			inner, err := c.rules(k)
			if err != nil {
				return nil, err
			}
			if len(inner) != 1 {
				return nil, c.errAt(k, "nestedUserQueue takes one inner rule, got %d", len(inner))
			}
			r.Nested = &inner[0]
		default:
			return nil, c.errAt(k, "unknown placement rule %q; want specified, user, primaryGroup, secondaryGroupExistingQueue, nestedUserQueue, default or reject", r.Name)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		// YARN refuses it too: a policy must end with a rule that
		// always places (QueuePlacementPolicy).
		return nil, c.errAt(parent, "no placement rule; want at least one, the last one that always places (default, user or reject)")
	}
	return out, nil
}

// DefaultPlacement is YARN's placement policy when a file gives none:
// the queue the job asked for, else the user's own queue
// (yarn.scheduler.fair.user-as-default-queue, true by default), either
// created when the file does not declare it
// (yarn.scheduler.fair.allow-undeclared-pools, true by default).
var DefaultPlacement = []Rule{{Name: "specified", Create: true}, {Name: "user", Create: true}}

// UseSite takes from the site file s what decides where jobs go that
// the allocation file leaves to the site configuration, as the scheduler
// of c's kind reads it:
//
// Hadoop 1: mapred.fairscheduler.poolnameproperty (default user.name) is
// the job property that names its pool (PoolManager.getPoolName), and a
// pool no file declares is made for it. user.name puts a job in its
// user's pool, mapred.job.queue.name in its queue's ("default" for
// none); a trace records no other job property, so another value is
// named in a warning and PoolFor's rule without a site file stays.
//
// YARN, where the file has no queuePlacementPolicy:
// yarn.scheduler.fair.allow-undeclared-pools (create) and
// user-as-default-queue (user), both true by default, make the rules
// specified (create), then user (create) if user, then default if not
// user or not create (QueuePlacementPolicy.fromConfiguration).
//
// It returns warnings for what of s does not apply, with their lines.
func (c *Config) UseSite(s *Site) []string {
	var warn []string
	note := func(name, format string, args ...any) {
		warn = append(warn, fmt.Sprintf("%s:%d: %s: ", s.File, s.props[name].line, name)+fmt.Sprintf(format, args...))
	}
	if c.Kind == Hadoop1 {
		for _, name := range []string{propUserAsDefault, propUndeclared} {
			if _, ok := s.props[name]; ok {
				note(name, "YARN's; the allocation file %s is Hadoop 1's, which does not read it", c.File)
			}
		}
		v := "user.name"
		if p, ok := s.props[propPoolName]; ok {
			v = strings.TrimSpace(p.value)
		} else if !s.holds("mapred.") {
			return warn // not Hadoop 1's site file: PoolFor's rule without one
		}
		switch v {
		case "user.name", "mapred.job.queue.name":
			c.poolName = v
		default:
			note(propPoolName, "%q: traces record a job's user and queue, not this property; jobs go to the pool their queue names when the allocation file declares it, else their user's", v)
		}
		return warn
	}
	if _, ok := s.props[propPoolName]; ok {
		note(propPoolName, "Hadoop 1's; the allocation file %s is YARN's, which does not read it", c.File)
	}
	if c.Placement != nil {
		for _, name := range []string{propUserAsDefault, propUndeclared} {
			if _, ok := s.props[name]; ok {
				note(name, "not read: the allocation file's queuePlacementPolicy places jobs")
			}
		}
		return warn
	}
	create, user := s.undeclared, s.userAsDefault
	rules := []Rule{{Name: "specified", Create: create}}
	if user {
		rules = append(rules, Rule{Name: "user", Create: create})
	}
	if !user || !create {
		rules = append(rules, Rule{Name: "default", Create: true})
	}
	c.sitePlacement = rules
	return warn
}

// queueName makes a name usable as a queue: YARN replaces a '.' in a user
// name with "_dot_" (QueuePlacementRule.cleanName), since '.' separates
// levels.
func queueName(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), ".", "_dot_") }

// PoolFor is the pool or queue a job of user, submitted to queue (as its
// trace records them; either may be ""), runs in. Its name is the queue's
// path below the root ("prod.etl").
//
// Hadoop 1, with a site file (UseSite): the pool its
// mapred.fairscheduler.poolnameproperty names, the user's or the queue's.
// Without one, the pool the trace's queue names, when the file declares a
// pool of that name (a cluster that sets poolnameproperty to
// mapred.job.queue.name); else the user's own pool, Hadoop 1's default
// (poolnameproperty user.name); "default" for a job without a user.
//
// YARN: the file's queuePlacementPolicy, else the site file's (UseSite),
// else DefaultPlacement, rule by
// rule: specified (the trace's queue, "root." optional; "default" counts as
// unspecified, as in YARN), user, nestedUserQueue, default (its queue
// attribute, "default" when none) and reject. A rule with create="false"
// places only in a queue the file declares. Group rules never place (traces
// record no groups). A job no rule places, or that a rule places in a
// parent queue, is an error naming the job's user and queue.
func (c *Config) PoolFor(user, queue string) (string, error) {
	queue = strings.TrimPrefix(strings.TrimSpace(queue), "root.")
	if c.Kind == Hadoop1 {
		u := strings.TrimSpace(user)
		switch {
		case c.poolName == "mapred.job.queue.name":
			if queue == "" {
				return "default", nil
			}
			return queue, nil
		case c.poolName == "user.name" && u != "":
			return u, nil
		case c.poolName == "user.name":
			return "default", nil
		}
		if q := c.byName[queue]; q != nil && queue != "" {
			return q.Name, nil
		}
		if u != "" {
			return u, nil
		}
		return "default", nil
	}
	rules := c.Placement
	if rules == nil {
		rules = c.sitePlacement
	}
	if rules == nil {
		rules = DefaultPlacement
	}
	for _, r := range rules {
		name, ok, err := c.apply(r, user, queue)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		if q := c.byName[name]; q != nil && len(q.Children) > 0 {
			return "", fmt.Errorf("user %q, queue %q: placement rule %s chose %s, a parent queue; jobs run in leaf queues", user, queue, r.Name, name)
		}
		return name, nil
	}
	return "", fmt.Errorf("user %q, queue %q: no placement rule of %s places the job", user, queue, c.File)
}

// apply runs one rule: the queue it names, and whether it places the job.
func (c *Config) apply(r Rule, user, queue string) (string, bool, error) {
	exists := func(n string) bool { return c.byName[n] != nil }
	var name string
	switch r.Name {
	case "specified":
		if queue == "" || queue == "default" {
			return "", false, nil
		}
		name = queue
	case "user":
		if strings.TrimSpace(user) == "" {
			return "", false, nil
		}
		name = queueName(user)
	case "default":
		name = strings.TrimPrefix(r.Queue, "root.")
		if name == "" {
			name = "default"
		}
	case "reject":
		return "", false, fmt.Errorf("user %q, queue %q: rejected by the reject placement rule (%s:%d)", user, queue, c.File, r.Line)
	case "nestedUserQueue":
		parent, ok, err := c.apply(*r.Nested, user, queue)
		if err != nil || !ok || strings.TrimSpace(user) == "" {
			return "", false, err
		}
		name = parent + "." + queueName(user)
	default: // group rules: no groups in traces
		return "", false, nil
	}
	if !exists(name) && !r.Create {
		return "", false, nil
	}
	return name, true, nil
}
