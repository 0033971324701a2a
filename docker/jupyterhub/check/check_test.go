package k8scheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// strict decodes YAML into v as the API server decodes JSON (sigs.k8s.io/json:
// field names case-sensitive), rejecting unknown and duplicate fields, each
// error with the field's path.
func strict(b []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(b) // duplicate keys
	if err != nil {
		return err
	}
	return strictJSON(j, v)
}

func strictJSON(j []byte, v any) error {
	serr, err := kjson.UnmarshalStrict(j, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(serr...)
}

// readJob reads a Job manifest strictly and checks what the grading relies
// on: kind batch/v1 Job, Indexed completion mode with parallelism equal to
// completions, and a container named grader with a command.
func readJob(path string) (*batchv1.Job, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var job batchv1.Job
	if err := strict(b, &job); err != nil {
		return nil, fmt.Errorf("%s: not a batch/v1 Job: %w", path, err)
	}
	s := job.Spec
	switch {
	case job.APIVersion != "batch/v1" || job.Kind != "Job":
		return nil, fmt.Errorf("%s: apiVersion %q kind %q, want batch/v1 Job", path, job.APIVersion, job.Kind)
	case s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion:
		return nil, fmt.Errorf("%s: spec.completionMode must be Indexed (each pod's JOB_COMPLETION_INDEX is its slice)", path)
	case s.Completions == nil || s.Parallelism == nil || *s.Completions < 1 || *s.Parallelism != *s.Completions:
		return nil, fmt.Errorf("%s: spec.completions and spec.parallelism must be set and equal (one pod per slice, all at once)", path)
	case s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever && s.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure:
		return nil, fmt.Errorf("%s: a Job's pods need restartPolicy Never or OnFailure, not %q", path, s.Template.Spec.RestartPolicy)
	}
	if _, err := grader(&job); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &job, nil
}

// grader returns the Job's container named grader, which must have a command.
func grader(job *batchv1.Job) (*corev1.Container, error) {
	for i, c := range job.Spec.Template.Spec.Containers {
		if c.Name != "grader" {
			continue
		}
		if len(c.Command) == 0 {
			return nil, fmt.Errorf("container grader has no command")
		}
		return &job.Spec.Template.Spec.Containers[i], nil
	}
	return nil, fmt.Errorf("no container named grader")
}

// graderCommand returns the grader container's command followed by its args,
// and its environment as NAME=value (literal values only).
func graderCommand(job *batchv1.Job) (argv, env []string, err error) {
	c, err := grader(job)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			return nil, nil, fmt.Errorf("container grader: env %s comes from elsewhere (valueFrom), not a literal", e.Name)
		}
		env = append(env, e.Name+"="+e.Value)
	}
	return append(append([]string{}, c.Command...), c.Args...), env, nil
}

// values is the part of Zero to JupyterHub's values that agx's values.yaml
// sets and that the chart hands to Kubernetes as API objects or quantities.
// Every other key of the file is left alone (the chart's own values schema
// covers them, with helm; not run here).
type values struct {
	Singleuser struct {
		Image struct {
			PullPolicy corev1.PullPolicy `json:"pullPolicy"`
		} `json:"image"`
		UID     *int64 `json:"uid"`
		FSGid   *int64 `json:"fsGid"`
		Storage struct {
			Capacity          resource.Quantity    `json:"capacity"`
			ExtraVolumes      []corev1.Volume      `json:"extraVolumes"`
			ExtraVolumeMounts []corev1.VolumeMount `json:"extraVolumeMounts"`
		} `json:"storage"`
		LifecycleHooks *corev1.Lifecycle `json:"lifecycleHooks"`
		CPU            struct {
			Guarantee *float64 `json:"guarantee"`
			Limit     *float64 `json:"limit"`
		} `json:"cpu"`
		Memory struct {
			Guarantee *resource.Quantity `json:"guarantee"`
			Limit     *resource.Quantity `json:"limit"`
		} `json:"memory"`
		// ExtraResourceLimits: each profile's kubespawner_override.extra_resource_limits.
		ExtraResourceLimits []corev1.ResourceList
	} `json:"singleuser"`
}

// readValues reads a values file: as YAML at all, then the parts of values
// strictly (each one decoded alone with unknown fields rejected), and checks
// that every volume mount names a volume.
func readValues(path string) (*values, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var all map[string]any
	if err := strict(b, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	su, _ := all["singleuser"].(map[string]any)
	storage, _ := su["storage"].(map[string]any)
	var v values
	// Decoded one part at a time: the values struct leaves out the chart's other
	// keys, so it cannot reject unknown fields as a whole.
	type part struct {
		name string
		val  any
		into any
	}
	parts := []part{
		{"singleuser.storage.extraVolumes", storage["extraVolumes"], &v.Singleuser.Storage.ExtraVolumes},
		{"singleuser.storage.extraVolumeMounts", storage["extraVolumeMounts"], &v.Singleuser.Storage.ExtraVolumeMounts},
		{"singleuser.storage.capacity", storage["capacity"], &v.Singleuser.Storage.Capacity},
		{"singleuser.lifecycleHooks", su["lifecycleHooks"], &v.Singleuser.LifecycleHooks},
		{"singleuser.cpu", su["cpu"], &v.Singleuser.CPU},
		{"singleuser.memory", su["memory"], &v.Singleuser.Memory},
		{"singleuser.uid", su["uid"], &v.Singleuser.UID},
		{"singleuser.fsGid", su["fsGid"], &v.Singleuser.FSGid},
		{"singleuser.image.pullPolicy", mapGet(su["image"], "pullPolicy"), &v.Singleuser.Image.PullPolicy},
	}
	profiles, _ := su["profileList"].([]any)
	v.Singleuser.ExtraResourceLimits = make([]corev1.ResourceList, len(profiles))
	for i, p := range profiles {
		parts = append(parts, part{fmt.Sprintf("singleuser.profileList[%d].kubespawner_override.extra_resource_limits", i),
			mapGet(mapGet(p, "kubespawner_override"), "extra_resource_limits"), &v.Singleuser.ExtraResourceLimits[i]})
	}
	for _, p := range parts {
		if p.val == nil {
			continue
		}
		j, err := json.Marshal(p.val)
		if err != nil {
			return nil, err
		}
		if err := strictJSON(j, p.into); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, p.name, err)
		}
	}
	if err := checkValues(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &v, nil
}

func mapGet(m any, key string) any {
	mm, _ := m.(map[string]any)
	return mm[key]
}

// checkValues checks what strict decoding cannot: enumerations and references.
func checkValues(v *values) error {
	su := &v.Singleuser
	switch su.Image.PullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return fmt.Errorf("singleuser.image.pullPolicy %q: want Always, IfNotPresent or Never", su.Image.PullPolicy)
	}
	vols := map[string]bool{}
	for _, vol := range su.Storage.ExtraVolumes {
		if vol.Name == "" {
			return fmt.Errorf("singleuser.storage.extraVolumes: a volume without a name")
		}
		vols[vol.Name] = true
	}
	for _, m := range su.Storage.ExtraVolumeMounts {
		if !vols[m.Name] || m.MountPath == "" {
			return fmt.Errorf("singleuser.storage.extraVolumeMounts: %q at %q: no such volume in extraVolumes, or no mountPath", m.Name, m.MountPath)
		}
	}
	if m := su.Memory; m.Guarantee != nil && m.Limit != nil && m.Guarantee.Cmp(*m.Limit) > 0 {
		return fmt.Errorf("singleuser.memory: guarantee %s above limit %s", m.Guarantee, m.Limit)
	}
	if c := su.CPU; c.Guarantee != nil && c.Limit != nil && *c.Guarantee > *c.Limit {
		return fmt.Errorf("singleuser.cpu: guarantee %g above limit %g", *c.Guarantee, *c.Limit)
	}
	return nil
}

const (
	jobFile    = "../grader-job.yaml"
	valuesFile = "../values.yaml"
)

// TestGraderJob: the Job decodes strictly, is Indexed, and its grader reads
// the slice from JOB_COMPLETION_INDEX, SLICES of them, as many as completions.
func TestGraderJob(t *testing.T) {
	job, err := readJob(jobFile)
	if err != nil {
		t.Fatal(err)
	}
	argv, env, err := graderCommand(job)
	if err != nil {
		t.Fatal(err)
	}
	if len(argv) != 3 || argv[0] != "/bin/bash" || argv[1] != "-c" {
		t.Fatalf("command %q: want /bin/bash -c SCRIPT (docker/scripts/job-slices-test.sh runs it so)", argv)
	}
	for _, want := range []string{"JOB_COMPLETION_INDEX", "% SLICES == slice", `-o "/grading/gradebook-$slice"`, "agx autograde"} {
		if !strings.Contains(argv[2], want) {
			t.Errorf("the grader's script does not contain %q", want)
		}
	}
	if want := fmt.Sprintf("SLICES=%d", *job.Spec.Completions); !slices.Contains(env, want) {
		t.Errorf("env %q: want %s (one slice per completion index)", env, want)
	}
	c, _ := grader(job)
	for _, capability := range []corev1.Capability{"SYS_ADMIN", "NET_ADMIN"} {
		if sc := c.SecurityContext; sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Add, capability) {
			t.Errorf("the grader container lacks CAP_%s, which strict isolation needs", capability)
		}
	}
	if sc := c.SecurityContext; sc == nil || sc.AppArmorProfile == nil || sc.AppArmorProfile.Type != corev1.AppArmorProfileTypeUnconfined {
		t.Errorf("the grader container is not AppArmor-unconfined: a node's default profile refuses the sandbox's mounts")
	}
	if ps := job.Spec.Template.Spec.SecurityContext; ps == nil || ps.RunAsUser == nil || *ps.RunAsUser != 0 {
		t.Errorf("the grader pod does not run as root (runAsUser 0), which strict isolation needs")
	}
}

func TestValues(t *testing.T) {
	v, err := readValues(valuesFile)
	if err != nil {
		t.Fatal(err)
	}
	su := v.Singleuser
	if len(su.Storage.ExtraVolumes) != 2 || len(su.Storage.ExtraVolumeMounts) != 2 || su.LifecycleHooks == nil || su.LifecycleHooks.PostStart == nil ||
		su.Memory.Limit == nil || su.Memory.Limit.String() != "2G" || len(su.ExtraResourceLimits) != 2 {
		t.Errorf("values decoded to %+v: a part went missing", su)
	}
}

// TestPlantedTypos plants one mistake at a time in a copy of each file; every
// one must be refused, with the field named.
func TestPlantedTypos(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"job: misspelt spec field", jobFile, "completionMode: Indexed", "completionMod: Indexed", `unknown field "spec.completionMod"`},
		{"job: misspelt volume field", jobFile, "claimName: agx-grading", "claimname: agx-grading", `unknown field "spec.template.spec.volumes[0].persistentVolumeClaim.claimname"`},
		{"job: capabilities misplaced", jobFile, "\n              add: [", "\n              adds: [", `unknown field "spec.template.spec.containers[0].securityContext.capabilities.adds"`},
		{"job: a misspelt enum field", jobFile, "type: Unconfined", "typ: Unconfined", `unknown field "spec.template.spec.containers[0].securityContext.appArmorProfile.typ"`},
		{"job: a duplicate key", jobFile, "  backoffLimitPerIndex: 1\n", "  backoffLimitPerIndex: 1\n  backoffLimitPerIndex: 2\n", `key "backoffLimitPerIndex" already set`},
		{"job: a bad quantity", jobFile, "memory: 3Gi}", "memory: 3GB}", "quantities must match"},
		{"job: not indexed", jobFile, "completionMode: Indexed", "completionMode: NonIndexed", "must be Indexed"},
		{"job: fewer pods than slices", jobFile, "parallelism: 4", "parallelism: 2", "must be set and equal"},
		{"values: misspelt mount field", valuesFile, "mountPath: /srv/agx/exchange", "mountpath: /srv/agx/exchange", `extraVolumeMounts: unknown field "[0].mountpath"`},
		{"values: misspelt volume source", valuesFile, "claimName: agx-go-cache", "claimNam: agx-go-cache", `extraVolumes: unknown field "[1].persistentVolumeClaim.claimNam"`},
		{"values: a mount of no volume", valuesFile, "      - name: agx-exchange\n        mountPath", "      - name: agx-exchang\n        mountPath", "no such volume"},
		{"values: a bad lifecycle hook", valuesFile, "postStart:", "poststart:", `lifecycleHooks: unknown field "poststart"`},
		{"values: a bad memory", valuesFile, "guarantee: 1G", "guarantee: 1 GB", "singleuser.memory"},
		{"values: a bad pull policy", valuesFile, "pullPolicy: IfNotPresent", "pullPolicy: IfNotPresnt", "pullPolicy"},
		{"values: a bad resource limit", valuesFile, `nvidia.com/gpu: "1"`, `nvidia.com/gpu: "one"`, "singleuser.profileList"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(string(b), tc.old) != 1 {
				t.Fatalf("%q is not in %s once: update the case", tc.old, tc.file)
			}
			p := filepath.Join(t.TempDir(), filepath.Base(tc.file))
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.file == jobFile {
				_, err = readJob(p)
			} else {
				_, err = readValues(p)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one with %q", err, tc.want)
			}
		})
	}
}
