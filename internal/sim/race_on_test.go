//go:build race

package sim

// raceOn says the race detector is on: it slows the simulation about
// sevenfold, so the default run is smaller (scripts/test.sh runs the whole
// budget without it).
const raceOn = true
