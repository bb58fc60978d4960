package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestKubernetesJob checks the rendered Indexed Job as Kubernetes reads
// it: one completion a run, indexed (each pod's JOB_COMPLETION_INDEX
// names its run), the parallelism asked for, the command that runs the
// sweep directory in the mounted claim.
func TestKubernetesJob(t *testing.T) {
	s := planSmall(t, t.TempDir())
	b, err := s.Kubernetes(KubernetesOptions{Image: "registry.example/mrsched:1", Parallelism: 3, Claim: "runs", MountPath: "/data"})
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct{ Name string }
		Spec       struct {
			CompletionMode       string `yaml:"completionMode"`
			Completions          int
			Parallelism          int
			BackoffLimitPerIndex int `yaml:"backoffLimitPerIndex"`
			Template             struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []struct {
						Image        string
						Command      []string
						VolumeMounts []struct {
							Name      string
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					}
					Volumes []struct {
						Name                  string
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatalf("the manifest is not YAML: %v\n%s", err, b)
	}
	sp := job.Spec
	pod := sp.Template.Spec
	checks := []struct {
		what string
		ok   bool
	}{
		{"a batch/v1 Job", job.APIVersion == "batch/v1" && job.Kind == "Job"},
		{"named for the sweep directory", job.Metadata.Name == "mrsched-sweep"},
		{"Indexed, so each pod gets its run's index", sp.CompletionMode == "Indexed"},
		{"one completion a run (8)", sp.Completions == 8},
		{"parallelism 3", sp.Parallelism == 3},
		{"failed indexes retried on their own", sp.BackoffLimitPerIndex > 0},
		{"pods not restarted in place", pod.RestartPolicy == "Never"},
		{"one container, the image asked for", len(pod.Containers) == 1 && pod.Containers[0].Image == "registry.example/mrsched:1"},
		{"running the sweep in the mounted claim", len(pod.Containers) == 1 && slices.Equal(pod.Containers[0].Command, []string{"mrsched", "sweep", "run", "-dir", "/data/sweep"})},
		{"the claim mounted at /data", len(pod.Containers) == 1 && len(pod.Containers[0].VolumeMounts) == 1 &&
			pod.Containers[0].VolumeMounts[0].MountPath == "/data" && len(pod.Volumes) == 1 &&
			pod.Volumes[0].Name == pod.Containers[0].VolumeMounts[0].Name && pod.Volumes[0].PersistentVolumeClaim.ClaimName == "runs"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("the Job is not %s:\n%s", c.what, b)
		}
	}
	if few, _ := s.Kubernetes(KubernetesOptions{Parallelism: 50}); !strings.Contains(string(few), "parallelism: 8\n") {
		t.Errorf("parallelism 50 for 8 runs was not cut to 8:\n%s", few)
	}
}

// TestKubernetesExampleIsCurrent: examples/sweep/k8s-indexed-job.yaml is
// what `mrsched sweep k8s` renders for the nas-users example planned in
// sweeps/nu (the command in docs/sweeps.md), so the example cannot drift
// from the code.
func TestKubernetesExampleIsCurrent(t *testing.T) {
	g, err := LoadGrid(filepath.Join("..", "examples", "sweep", "nas-users.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "nu")
	if _, err := g.Write(dir); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Kubernetes(KubernetesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "examples", "sweep", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("examples/sweep/k8s-indexed-job.yaml is not what sweep k8s renders; render it again (docs/sweeps.md). Rendered:\n%s", got)
	}
}
