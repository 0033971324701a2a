// Package k8scheck checks the Kubernetes manifests of docker/jupyterhub against
// the Kubernetes API types (k8s.io/api), with no cluster: strict decoding,
// so that a misspelt or misplaced field is an error rather than a field the
// API server would drop without a word.
//
// # Overview
//
// It is a module of its own (like docker/lint), so that k8s.io/api stays out
// of agx's go.mod: the kernel's offline module cache and the images need
// nothing of it. `make k8s-check` (in `make test`) runs it. readJob decodes grader-job.yaml into a
// batch/v1 Job and checks that it is Indexed, with a grader container that has
// a command; readValues decodes the parts of values.yaml (Zero to JupyterHub's
// Helm values, not a Kubernetes object) that the chart hands to Kubernetes as
// objects or quantities. docker/scripts/job-slices-test.sh runs the grader
// container's command as written.
//
// # Errors
//
// The checks return an error naming the file and the field.
package k8scheck
