// Package race tells tests whether the race detector is on, in one place, so that packages do
// not each keep a pair of build-tagged files or read the build information.
package race
