module github.com/goagx/agx

go 1.26

require (
	github.com/janpfeifer/gonb v0.11.4
	golang.org/x/sys v0.30.0
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20201012070519-2390d26c3658
	gonum.org/v1/plot v0.16.0
	google.golang.org/protobuf v1.36.12
	gorgonia.org/cu v0.9.6
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.1.0 // indirect
	codeberg.org/go-pdf/fpdf v0.10.0 // indirect
	git.sr.ht/~sbinet/gg v0.6.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/gofrs/uuid v4.4.0+incompatible // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/exp v0.0.0-20250106191152-7588d65b2ba8 // indirect
	golang.org/x/image v0.25.0 // indirect
	golang.org/x/text v0.23.0 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)
