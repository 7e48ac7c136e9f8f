package model

// SetGridSteps sets how finely the crossval searches step through the
// ranges and returns the old value (for the external tests).
func SetGridSteps(n int) int {
	old := gridSteps
	gridSteps = n
	return old
}
