package autograde

import "github.com/goagx/agx/internal/sandbox"

// The sandbox's settings as Options takes them; package sandbox sets the
// isolation up.
type (
	Limits         = sandbox.Limits
	IsolationError = sandbox.IsolationError
)

// Network settings (Limits.Network) and isolation modes (Options.Isolation).
const (
	NetAuto             = sandbox.NetAuto
	NetNone             = sandbox.NetNone
	NetHost             = sandbox.NetHost
	IsolationStrict     = sandbox.IsolationStrict
	IsolationBestEffort = sandbox.IsolationBestEffort
)
