// Package usage is the one kind of error that means "the person running
// memplan gave it bad input": a flag, an argument or a file that cannot be
// what they meant. Every package's bad-input errors match ErrInput with
// errors.Is, by wrapping it or by an Is method on their own error type, and
// the command decides its exit status (2) by that alone, never by the text.
//
// It is a leaf: it imports only the standard library, so every package can
// import it.
package usage

import (
	"errors"
	"fmt"
)

// ErrInput is matched by errors.Is for every bad-input error. Its text is
// what fmt.Errorf("%w: ...", ErrInput) puts in front of a message; the
// command strips it again, since the message itself says what is wrong.
var ErrInput = errors.New("invalid input")

// Errorf is a bad-input error with the message format gives, and only it:
// nothing is prefixed. %w wraps as in fmt.Errorf.
func Errorf(format string, args ...any) error {
	return &wrapped{fmt.Errorf(format, args...)}
}

// Wrap marks err as bad input without changing its message; nil stays nil.
func Wrap(err error) error {
	if err == nil || errors.Is(err, ErrInput) {
		return err
	}
	return &wrapped{err}
}

type wrapped struct{ err error }

func (e *wrapped) Error() string        { return e.err.Error() }
func (e *wrapped) Unwrap() error        { return e.err }
func (e *wrapped) Is(target error) bool { return target == ErrInput }
