module github.com/goagx/agx

go 1.26

require (
	github.com/janpfeifer/gonb v0.11.4
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/gofrs/uuid v4.4.0+incompatible // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20250106191152-7588d65b2ba8 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)
