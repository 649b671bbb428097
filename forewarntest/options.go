package forewarntest

import (
	"log/slog"
	"time"
)

// Start is the time the fake clock of a new Server shows.
var Start = time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)

// Option changes how New starts a Server.
type Option func(*config)

// config is what the options set.
type config struct {
	timeScale float64 // with scaled: the real clock's scale
	scaled    bool    // WithTimeScale was given
	dev       bool
	fleetFile string
	logger    *slog.Logger
}

// WithTimeScale runs the Server on the real clock with its time scaled:
// notice and impact times are divided by scale, as with serve
// --time-scale (60 makes 15 minutes of notice 15 seconds). Advance then
// waits, d divided by scale. The scale must be a finite number greater
// than 0, as serve's; New fails the test otherwise.
func WithTimeScale(scale float64) Option {
	return func(c *config) { c.timeScale, c.scaled = scale, true }
}

// WithDev enables Scheduled Events for every scope from the start, as
// serve --dev does (without its time scale: see WithTimeScale), so that
// events get notice before any VM has asked.
func WithDev() Option {
	return func(c *config) { c.dev = true }
}

// WithFleetFile creates the scopes and VMs of a fleet file (the format of
// serve --fleet and forewarn apply) before New returns. Its VMs without
// addresses get one each, as through Fleet.
func WithFleetFile(path string) Option {
	return func(c *config) { c.fleetFile = path }
}

// WithLogger sends the logs of the control plane, the metadata endpoint
// and the admin API to logger; without it they are discarded.
func WithLogger(logger *slog.Logger) Option {
	return func(c *config) { c.logger = logger }
}
