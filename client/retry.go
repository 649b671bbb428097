package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// retryPolicy is the backoff of failed requests.
type retryPolicy struct {
	attempts int           // attempts in all for bounded operations
	base     time.Duration // wait before the first retry
	max      time.Duration // cap of the exponential part
}

// delay returns the wait after the failure numbered failure (0 for the
// first): base doubled each time up to max, with "equal jitter" (between
// half and all of it), and never less than the Retry-After err carries.
func (p retryPolicy) delay(failure int, err error) time.Duration {
	d := p.base
	for i := 0; i < failure && d < p.max; i++ {
		d *= 2
	}
	d = min(d, p.max)
	d = d/2 + rand.N(d/2+1)
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.RetryAfter > d {
		d = apiErr.RetryAfter
	}
	return d
}

// retryable reports whether a request that failed with err may be sent
// again: transport errors (but a source address the host cannot use),
// timeouts, 410, 429 and 5xx.
func retryable(err error) bool {
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		return apiErr.Retryable()
	}
	return !errors.Is(err, ErrInvalidEndpoint) && !errors.Is(err, ErrMalformedResponse) &&
		!errors.Is(err, ErrConflictingOptions) && !errors.Is(err, ErrSourceAddr)
}

// withRetry runs attempt until it succeeds, fails for good, or has been
// tried c.retry.attempts times; it returns the last error. op names the
// operation in errors and logs.
func (c *Client) withRetry(ctx context.Context, op string, attempt func(context.Context) error) error {
	for failure := 0; ; failure++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (last error: %v)", op, ctx.Err(), err)
		}
		if !retryable(err) {
			return fmt.Errorf("%s: %w", op, err)
		}
		if failure+1 >= c.retry.attempts {
			if failure == 0 {
				return fmt.Errorf("%s: %w", op, err)
			}
			return fmt.Errorf("%s: giving up after %d attempts: %w", op, failure+1, err)
		}
		wait := c.retry.delay(failure, err)
		c.logger.Warn("metadata request failed, retrying", "op", op, "error", err,
			"attempt", failure+1, "retry_in", wait)
		if serr := c.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%s: %w (last error: %v)", op, serr, err)
		}
	}
}

// sleep waits d on the client's clock, or until ctx ends.
func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.clock.After(d):
		return nil
	}
}
