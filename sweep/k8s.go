package sweep

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// KubernetesOptions shape the Indexed Job that runs a sweep on
// Kubernetes. Zero values take the defaults in their comments.
type KubernetesOptions struct {
	// Name is the Job's name (default "mrsched-" and the sweep
	// directory's name, made a DNS label).
	Name string
	// Image holds mrsched on its PATH (default "mrsched:latest"; see
	// docs/sweeps.md for a Dockerfile).
	Image string
	// Parallelism is how many runs go at once (default 4, at most the
	// number of runs).
	Parallelism int
	// Claim is the PersistentVolumeClaim holding the sweep directory, at
	// the volume's top level (default "mrsched-sweeps"); every pod reads
	// its scenario there and writes its run's outputs there, so it must
	// be ReadWriteMany when pods land on several nodes.
	Claim string
	// MountPath is where the claim is mounted (default "/sweeps").
	MountPath string
	// CPU and Memory are each pod's requests (default "1" and "2Gi": a
	// run is one thread; the FB-2010 day on 600 nodes needs about 1 GB).
	CPU, Memory string
	// Retries is how often a failed index is retried (default 2).
	Retries int
}

func (o KubernetesOptions) withDefaults(dir string, runs int) KubernetesOptions {
	if o.Name == "" {
		o.Name = "mrsched-" + filepath.Base(filepath.Clean(dir))
	}
	o.Name = dnsLabel(o.Name)
	if o.Image == "" {
		o.Image = "mrsched:latest"
	}
	if o.Parallelism <= 0 {
		o.Parallelism = 4
	}
	o.Parallelism = min(o.Parallelism, runs)
	if o.Claim == "" {
		o.Claim = "mrsched-sweeps"
	}
	if o.MountPath == "" {
		o.MountPath = "/sweeps"
	}
	if o.CPU == "" {
		o.CPU = "1"
	}
	if o.Memory == "" {
		o.Memory = "2Gi"
	}
	if o.Retries <= 0 {
		o.Retries = 2
	}
	return o
}

var notLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// dnsLabel makes s a Kubernetes object name: lower-case letters, digits and
// hyphens, at most 63 characters, starting and ending alphanumeric.
func dnsLabel(s string) string {
	s = notLabel.ReplaceAllString(strings.ToLower(s), "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-")
}

// The manifest's shape: only the fields it sets, in the order kubectl
// shows them.
type (
	k8sJob struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   k8sMeta    `yaml:"metadata"`
		Spec       k8sJobSpec `yaml:"spec"`
	}
	k8sMeta struct {
		Name   string            `yaml:"name,omitempty"`
		Labels map[string]string `yaml:"labels,omitempty"`
	}
	k8sJobSpec struct {
		CompletionMode       string      `yaml:"completionMode"`
		Completions          int         `yaml:"completions"`
		Parallelism          int         `yaml:"parallelism"`
		BackoffLimitPerIndex int         `yaml:"backoffLimitPerIndex"`
		Template             k8sTemplate `yaml:"template"`
	}
	k8sTemplate struct {
		Metadata k8sMeta    `yaml:"metadata"`
		Spec     k8sPodSpec `yaml:"spec"`
	}
	k8sPodSpec struct {
		RestartPolicy string         `yaml:"restartPolicy"`
		Containers    []k8sContainer `yaml:"containers"`
		Volumes       []k8sVolume    `yaml:"volumes"`
	}
	k8sContainer struct {
		Name         string       `yaml:"name"`
		Image        string       `yaml:"image"`
		Command      []string     `yaml:"command"`
		Resources    k8sResources `yaml:"resources"`
		VolumeMounts []k8sMount   `yaml:"volumeMounts"`
	}
	k8sResources struct {
		Requests map[string]string `yaml:"requests"`
	}
	k8sMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	k8sVolume struct {
		Name                  string   `yaml:"name"`
		PersistentVolumeClaim k8sClaim `yaml:"persistentVolumeClaim"`
	}
	k8sClaim struct {
		ClaimName string `yaml:"claimName"`
	}
)

// Kubernetes renders an Indexed Job that runs the sweep: one completion a
// run, each pod running `mrsched sweep run` on the sweep directory in the
// claim, which reads its run's index from JOB_COMPLETION_INDEX. A pod
// that is retried, or a Job applied again, skips runs already finished.
func (s *Sweep) Kubernetes(o KubernetesOptions) ([]byte, error) {
	n := len(s.Plan.Runs)
	o = o.withDefaults(s.Dir, n)
	if o.Name == "" {
		return nil, fmt.Errorf("job name: nothing left of it as a Kubernetes name")
	}
	dir := path.Join(o.MountPath, filepath.Base(filepath.Clean(s.Dir)))
	labels := map[string]string{"app.kubernetes.io/name": "mrsched", "app.kubernetes.io/instance": o.Name}
	job := k8sJob{
		APIVersion: "batch/v1", Kind: "Job",
		Metadata: k8sMeta{Name: o.Name, Labels: labels},
		Spec: k8sJobSpec{
			CompletionMode: "Indexed", Completions: n, Parallelism: o.Parallelism, BackoffLimitPerIndex: o.Retries,
			Template: k8sTemplate{
				Metadata: k8sMeta{Labels: labels},
				Spec: k8sPodSpec{
					RestartPolicy: "Never",
					Containers: []k8sContainer{{
						Name: "run", Image: o.Image,
						Command:      []string{"mrsched", "sweep", "run", "-dir", dir},
						Resources:    k8sResources{Requests: map[string]string{"cpu": o.CPU, "memory": o.Memory}},
						VolumeMounts: []k8sMount{{Name: "sweeps", MountPath: o.MountPath}},
					}},
					Volumes: []k8sVolume{{Name: "sweeps", PersistentVolumeClaim: k8sClaim{ClaimName: o.Claim}}},
				},
			},
		},
	}
	var b bytes.Buffer
	name := filepath.Base(filepath.Clean(s.Dir))
	fmt.Fprintf(&b, "# A Kubernetes Indexed Job that runs the sweep planned in %s: %d runs, %d at a time,\n", name, n, o.Parallelism)
	fmt.Fprintf(&b, "# each pod the run its JOB_COMPLETION_INDEX names, from the sweep directory at the top\n")
	fmt.Fprintf(&b, "# of volume claim %s (copy it there first). Apply with kubectl apply -f FILE; when\n", o.Claim)
	fmt.Fprintf(&b, "# the Job completes, copy the directory back and run mrsched sweep collect -dir %s.\n", name)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(job); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
