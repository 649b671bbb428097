package main

import (
	"slices"
	"testing"
)

func TestNoteSlow(t *testing.T) {
	s := newPollStats()
	for _, v := range []float64{3, 9, 1, 7, 7, 12, 0.5, 8} {
		s.noteSlow(slowRequest{Ms: v})
	}
	var got []float64
	for _, r := range s.slowest {
		got = append(got, r.Ms)
	}
	if want := []float64{12, 9, 8, 7, 7}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	all := newPollStats()
	all.add(&s)
	other := newPollStats()
	other.noteSlow(slowRequest{Ms: 10})
	all.add(&other)
	if len(all.slowest) != keepSlowest || all.slowest[1].Ms != 10 || all.slowest[4].Ms != 7 {
		t.Errorf("merged: %v", all.slowest)
	}
}
