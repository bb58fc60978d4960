package scenario

// Check builds everything a run needs (engine settings, metrics, cluster,
// workload, policy) without running it, and returns the first error Run
// would give before it simulates: a plan of many runs finds a bad one
// before any of them runs.
func (c *Config) Check() error {
	if err := c.Engine.WithDefaults().Validate(); err != nil {
		return c.fileErr(err)
	}
	if err := c.Metrics.Validate(); err != nil {
		return c.fileErr(err)
	}
	_, _, _, err := c.Build()
	return err
}
