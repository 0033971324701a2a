// Command armed is run by TestSecret: it asks the kit for results the way a
// test cell does (in main) and the ways student code could (a package-level
// initialiser, init, a function main calls, a goroutine), and prints the
// secret each one received (through its result's MAC) and whether the secret
// file was still there.
package main

import (
	"fmt"
	"os"

	"github.com/goagx/agx/grade"
)

// key names the secret that keyed r's MAC: "s3cret" (TestSecret's), "" (no
// MAC) or "other".
func key(r *grade.Result) string {
	switch {
	case r.MAC == "":
		return ""
	case r.Verify("s3cret"):
		return "s3cret"
	}
	return "other"
}

var fromVar = key(grade.New("cell").Done())

var fileLeft = func() bool {
	_, err := os.Stat(os.Getenv(grade.SecretEnv))
	return err == nil
}()

var fromInit string

func init() { fromInit = key(grade.New("cell").Done()) }

func helper() string { return key(grade.New("cell").Done()) }

func main() {
	fromHelper := helper()
	ch := make(chan string)
	go func() { ch <- key(grade.New("cell").Done()) }()
	fromGoroutine := <-ch
	other := key(grade.New("other").Done())
	fromMain := key(grade.New("cell").Done())
	again := key(grade.New("cell").Done())
	fmt.Printf("RESULT var=%q file=%v init=%q helper=%q goroutine=%q other=%q main=%q again=%q\n",
		fromVar, fileLeft, fromInit, fromHelper, fromGoroutine, other, fromMain, again)
}
