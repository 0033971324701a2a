// Package gradpromise lets this module's own custom Functions promise the
// engine that their Backward keeps none of the gradients it is given or
// returns once it has returned (none stored in the ctx, a closure, a field
// or a global). The engine then recycles those gradients' memory as it does
// for built-in ops, instead of leaving it to the collector.
//
// The engine cannot check the promise, and a Function that breaks it sees a
// kept gradient overwritten by a later result. So only the module's
// Functions, whose tests exercise the recycling, can make it: the promise's
// method takes a Token, a type of this internal package that code outside
// the module cannot name. A user's Function needs nothing: its gradients are
// left to the collector.
package gradpromise

// Token is the argument of the promise's method.
type Token struct{}

// Keeper is a Function that makes the promise.
type Keeper interface{ KeepsNoGrads(Token) }

// Promise, embedded in a Function, makes it a Keeper.
type Promise struct{}

// KeepsNoGrads is the promise.
func (Promise) KeepsNoGrads(Token) {}
