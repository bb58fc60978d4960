module github.com/mrsched/mrsched

go 1.26.8

require (
	github.com/vishvananda/netlink v1.3.1
	github.com/vishvananda/netns v0.0.5
	golang.org/x/sys v0.50.0
	gopkg.in/yaml.v3 v3.0.1
)
