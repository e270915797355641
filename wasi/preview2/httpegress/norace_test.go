//go:build !race

package httpegress_test

const raceEnabled = false
