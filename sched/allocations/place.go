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
// none); another property is read from the job's configuration where
// its trace records it (PoolForJob, PoolProperties).
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
			c.poolNameAt = fmt.Sprintf("%s:%d", s.File, p.line)
		} else if !s.holds("mapred.") {
			return warn // not Hadoop 1's site file: PoolFor's rule without one
		}
		c.poolName = v
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
	return c.PoolForJob(user, queue, nil)
}

// explicitPoolProperty is the job property that names a Hadoop 1 job's
// pool whatever poolnameproperty says (PoolManager.EXPLICIT_POOL_PROPERTY).
const explicitPoolProperty = "mapred.fairscheduler.pool"

// PoolProperties are the job configuration properties PoolForJob reads,
// for a trace reader to keep: Hadoop 1's explicit pool property and the
// property poolnameproperty names; none for YARN, whose jobs name their
// queue, which traces record.
func (c *Config) PoolProperties() []string {
	if c.Kind != Hadoop1 {
		return nil
	}
	name := c.poolName
	if name == "" {
		name = "user.name"
	}
	return []string{explicitPoolProperty, name}
}

// UnrecordedPoolProperty is the warning for a Hadoop 1 file whose site
// sets poolnameproperty to a property traces do not otherwise record
// (neither user.name nor mapred.job.queue.name), when unrecorded of the
// total jobs have no configuration in their trace: those go where
// PoolFor puts a job without one. "" when nothing is to be said.
func (c *Config) UnrecordedPoolProperty(unrecorded, total int) string {
	switch {
	case c.Kind != Hadoop1, unrecorded == 0, c.poolNameAt == "":
		return ""
	case c.poolName == "user.name", c.poolName == "mapred.job.queue.name":
		return ""
	}
	return fmt.Sprintf("%s: %s: %q: %d of %d jobs' traces record no job configuration to read it from (a JobHistory file's <job id>_conf.xml beside it, a Rumen job's jobProperties); they go to the pool their queue names when the allocation file declares it, else their user's",
		c.poolNameAt, propPoolName, c.poolName, unrecorded, total)
}

// PoolForJob is PoolFor for a job whose trace recorded its configuration
// properties, conf (nil when it recorded none). Hadoop 1 places such a
// job as PoolManager.getPoolName does: mapred.fairscheduler.pool where
// the job sets it, else the property poolnameproperty names (user.name
// by default), trimmed, else the pool "default"; a job without user.name
// takes the user its trace records. Without conf, and for YARN, it is
// PoolFor.
func (c *Config) PoolForJob(user, queue string, conf map[string]string) (string, error) {
	queue = strings.TrimPrefix(strings.TrimSpace(queue), "root.")
	if c.Kind == Hadoop1 && conf != nil {
		if p, ok := conf[explicitPoolProperty]; ok && strings.TrimSpace(p) != "" {
			return strings.TrimSpace(p), nil
		}
		prop := c.poolName
		if prop == "" {
			prop = "user.name"
		}
		if p, ok := conf[prop]; ok && strings.TrimSpace(p) != "" {
			return strings.TrimSpace(p), nil
		}
		switch u := strings.TrimSpace(user); {
		case prop == "user.name" && u != "":
			return u, nil
		case prop == "mapred.job.queue.name" && queue != "":
			return queue, nil
		}
		return "default", nil
	}
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
