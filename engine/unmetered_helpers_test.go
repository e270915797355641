package engine_test

import "github.com/kobako/kobako/engine"

// unmeteredLimits are the default limits without fuel.
func unmeteredLimits() engine.Limits {
	lim := engine.DefaultLimits()
	lim.Fuel = engine.Unmetered
	return lim
}
