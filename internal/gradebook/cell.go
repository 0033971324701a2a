package gradebook

// Cell statuses in the gradebook.
const (
	StatusPassed   = "passed"    // the result gives all the points
	StatusPartial  = "partial"   // some of the points
	StatusFailed   = "failed"    // a valid result with no points
	StatusRejected = "rejected"  // a result whose total disagrees with the cell's points, or results the cell's Grader did not produce
	StatusError    = "error"     // no result; the cell failed (compile error, panic)
	StatusTimeout  = "timeout"   // no result; the cell ran past its time limit
	StatusNotRun   = "not_run"   // the cell was not executed
	StatusNoResult = "no_result" // the cell ran but reported nothing (os.Exit, crash)
	StatusManual   = "manual"    // graded by hand (overrides)
	// StatusUngradable: the cell's output could not all be read (it did not
	// arrive in time), so whether it reported a result is unknown; the entry
	// is ungradable and retried on the next run.
	StatusUngradable = "ungradable"
)

// CellGrade is the grade of one graded cell.
type CellGrade struct {
	GradeID    string   `json:"grade_id"`
	Kind       string   `json:"kind"`        // test, manual or task
	Points     float64  `json:"points"`      // after overrides
	AutoPoints float64  `json:"auto_points"` // what the autograder gave
	MaxPoints  float64  `json:"max_points"`  // the source's points
	Status     string   `json:"status"`
	Messages   []string `json:"messages,omitempty"`
	Checks     []Check  `json:"checks,omitempty"`
	NonceOK    bool     `json:"nonce_ok"` // a result with this run's nonce came from this cell
	// HasHidden: the source cell has hidden tests, so feedback withholds its
	// raw error messages (they may quote hidden code).
	HasHidden bool      `json:"has_hidden,omitempty"`
	Seconds   float64   `json:"seconds"`
	Override  *Override `json:"override,omitempty"`
	// Bonus: an optional cell (metadata.agx.bonus in the source); its points
	// count in the score, not in the maximum.
	Bonus bool `json:"bonus,omitempty"`
	// AnswerErrors: the errors of the student's own cells before this test
	// cell (a compile error in the answer, a panic), when the cell did not
	// pass. They quote only the student's code, so feedback shows them even
	// where the cell's own messages are withheld.
	AnswerErrors []string `json:"answer_errors,omitempty"`
}

// Check is one check of a test cell's result.
type Check struct {
	Name    string  `json:"name"`
	Points  float64 `json:"points"`
	Max     float64 `json:"max"`
	Status  string  `json:"status"`
	Hidden  bool    `json:"hidden"`
	Message string  `json:"message,omitempty"`
}

// MaxMessage bounds the messages the gradebook keeps from a cell's outputs.
const MaxMessage = 2000
