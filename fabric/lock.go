package fabric

import "context"

// lock is a mutex whose waiters can give up when their context ends.
type lock chan struct{}

func (l lock) Lock()   { l <- struct{}{} }
func (l lock) Unlock() { <-l }

// LockContext locks l, or returns ctx's error if it ends first.
func (l lock) LockContext(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
