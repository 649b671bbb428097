package imds

import (
	"context"
	"errors"
	"testing"
)

// An enableContext ends with the request's context, at Shutdown, and on
// release once used; a released one is canceled for whoever still holds it.
func TestEnableContext(t *testing.T) {
	t.Run("request ends", func(t *testing.T) {
		s := New(Config{Metadata: quietMetadata{}})
		req, cancel := context.WithCancel(context.WithValue(context.Background(), testKey{}, "v"))
		c := s.enableContext(req)
		if c.Err() != nil || c.Value(testKey{}) != "v" {
			t.Fatalf("fresh: err %v, value %v", c.Err(), c.Value(testKey{}))
		}
		cancel()
		<-c.Done()
		if !errors.Is(c.Err(), context.Canceled) {
			t.Fatalf("err %v after the request ended", c.Err())
		}
		s.releaseEnableContext(c)
	})
	t.Run("shutdown", func(t *testing.T) {
		s := New(Config{Metadata: quietMetadata{}})
		c := s.enableContext(context.Background())
		done := c.Done()
		s.Shutdown()
		<-done
		s.releaseEnableContext(c)
	})
	t.Run("release", func(t *testing.T) {
		s := New(Config{Metadata: quietMetadata{}})
		c := s.enableContext(context.Background())
		var held context.Context = c
		done := held.Done()
		s.releaseEnableContext(c)
		<-done
		if held.Err() == nil {
			t.Fatal("a used context is not canceled on release")
		}
		// A used context is never recycled.
		if next := s.enableContext(context.Background()); next == c {
			t.Fatal("a used context was recycled")
		}
	})
}

// testKey is a context key of the tests.
type testKey struct{}
