// Package gradebook is the record of a class's grades: each student's entry
// (STUDENT.json, with its cell grades and review flags), the instructor's
// overrides, the class table (grades.csv), the per-student HTML feedback,
// and the merge of gradebook slices graded on several machines. It reads
// and writes files only; package autograde fills the entries in.
package gradebook
