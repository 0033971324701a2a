package gradebook

// A Flag marks something in a submission for a person to review. Flags do
// not change the score, except the kinds that void the test cells after
// them (score.VoidAfterFlags).
type Flag struct {
	Kind    string `json:"kind"`
	Cell    string `json:"cell"`           // grade_id, or "cell N" (index in the rebuilt notebook)
	Line    int    `json:"line,omitempty"` // 1-based line of the cell's source, when known
	Message string `json:"message"`
}

// Flag kinds.
const (
	FlagMagic         = "magic"          // a `!` shell or `%` magic line in student code
	FlagInit          = "init"           // an init function (or GoNB's init_NAME)
	FlagRedefinition  = "redefinition"   // redefines the grade kit or a name of a locked cell
	FlagExit          = "os_exit"        // os.Exit in student code
	FlagUnsafe        = "unsafe"         // package unsafe or go:linkname
	FlagSyscall       = "syscall"        // package syscall or golang.org/x/sys
	FlagExec          = "exec"           // package os/exec
	FlagNetwork       = "network"        // a network package
	FlagForged        = "forged_result"  // a grade result where no test cell put it, or with a wrong nonce
	FlagNoResult      = "no_result"      // a test cell produced no valid result
	FlagMissingAnswer = "missing_answer" // an answer cell was deleted
	FlagDuplicateCell = "duplicate_cell" // an answer cell appears twice
	FlagUnknownCell   = "unknown_cell"   // a cell with a grade_id the source lacks
	FlagIncomplete    = "run_incomplete" // the run stopped before the last cell
	FlagOutputCapped  = "output_capped"  // a cell's output was truncated
	FlagTimeout       = "cell_timeout"   // a cell ran past its time limit
	FlagInitializer   = "initializer"    // a package-level variable initialised by a call
	FlagSelfRead      = "self_read"      // reads or writes files, reads the environment, its own binary or memory
	FlagForbidden     = "forbidden"      // uses a package or name the source's metadata.agx.forbid lists
)
