package allocations

import (
	"errors"
	"fmt"
	"strings"
)

// rules reads a queuePlacementPolicy's rules.
func (c *Config) rules(kids []*elem) ([]Rule, error) {
	var out []Rule
	for _, k := range kids {
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
			inner, err := c.rules(k.kids)
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
		return nil, errors.New("a queuePlacementPolicy without rules")
	}
	return out, nil
}

// DefaultPlacement is YARN's placement policy when a file gives none:
// the queue the job asked for, else the user's own queue
// (yarn.scheduler.fair.user-as-default-queue, true by default), either
// created when the file does not declare it
// (yarn.scheduler.fair.allow-undeclared-pools, true by default).
var DefaultPlacement = []Rule{{Name: "specified", Create: true}, {Name: "user", Create: true}}

// queueName makes a name usable as a queue: YARN replaces a '.' in a user
// name with "_dot_" (QueuePlacementRule.cleanName), since '.' separates
// levels.
func queueName(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), ".", "_dot_") }

// PoolFor is the pool or queue a job of user, submitted to queue (as its
// trace records them; either may be ""), runs in. Its name is the queue's
// path below the root ("prod.etl").
//
// Hadoop 1: the pool the trace's queue names, when the file declares a
// pool of that name (a cluster that sets mapred.fairscheduler.poolnameproperty
// to mapred.job.queue.name); else the user's own pool, Hadoop 1's default
// (poolnameproperty user.name); "default" for a job without a user.
//
// YARN: the file's queuePlacementPolicy, else DefaultPlacement, rule by
// rule: specified (the trace's queue, "root." optional; "default" counts as
// unspecified, as in YARN), user, nestedUserQueue, default (its queue
// attribute, "default" when none) and reject. A rule with create="false"
// places only in a queue the file declares. Group rules never place (traces
// record no groups). A job no rule places, or that a rule places in a
// parent queue, is an error naming the job's user and queue.
func (c *Config) PoolFor(user, queue string) (string, error) {
	queue = strings.TrimPrefix(strings.TrimSpace(queue), "root.")
	if c.Kind == Hadoop1 {
		if q := c.byName[queue]; q != nil && queue != "" {
			return q.Name, nil
		}
		if u := strings.TrimSpace(user); u != "" {
			return u, nil
		}
		return "default", nil
	}
	rules := c.Placement
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
