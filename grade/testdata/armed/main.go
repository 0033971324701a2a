// Command armed is run by TestSecret: it asks the kit for results the way a
// test cell does (in main) and the ways student code could (a package-level
// initialiser, init, a function main calls, a goroutine), and prints the
// nonce each one received and whether the secret file was still there.
package main

import (
	"fmt"
	"os"

	"github.com/goagx/agx/grade"
)

var fromVar = grade.New("cell").Done().Nonce

var fileLeft = func() bool {
	_, err := os.Stat(os.Getenv(grade.SecretEnv))
	return err == nil
}()

var fromInit string

func init() { fromInit = grade.New("cell").Done().Nonce }

func helper() string { return grade.New("cell").Done().Nonce }

func main() {
	fromHelper := helper()
	ch := make(chan string)
	go func() { ch <- grade.New("cell").Done().Nonce }()
	fromGoroutine := <-ch
	other := grade.New("other").Done().Nonce
	fromMain := grade.New("cell").Done().Nonce
	again := grade.New("cell").Done().Nonce
	fmt.Printf("RESULT var=%q file=%v init=%q helper=%q goroutine=%q other=%q main=%q again=%q\n",
		fromVar, fileLeft, fromInit, fromHelper, fromGoroutine, other, fromMain, again)
}
