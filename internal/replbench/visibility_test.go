package replbench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// visibleWithin is how long an approval may take to show on the other
// replica before the measurement gives up: far beyond anything expected.
const visibleWithin = 10 * time.Second

// defaultSamples is the number of approvals TestApprovalVisibility makes
// unless $REPLBENCH_SAMPLES says otherwise.
const defaultSamples = 20

// TestApprovalVisibility measures, on two replicas of one etcd, the time
// from an approval POSTed to one replica's metadata endpoint to the
// other's showing the event Started to a long-poll of the same VM, and
// logs its percentiles (run with -v). It fails only if an approval does
// not show within visibleWithin.
//
//	REPLBENCH_SAMPLES=500 go test ./internal/replbench -run Visibility -v
func TestApprovalVisibility(t *testing.T) {
	n := defaultSamples
	if v := os.Getenv("REPLBENCH_SAMPLES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("REPLBENCH_SAMPLES=%q: want a positive number", v)
		}
	}
	v := startVisibility(t)
	var visible, posted []time.Duration
	for i := range n {
		s, err := v.sample(t.Context(), i)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		visible, posted = append(visible, s.visible), append(posted, s.posted)
	}
	t.Logf("%d approvals: visible on the other replica p50 %v p99 %v max %v; POST on the approving replica p50 %v p99 %v",
		n, percentile(visible, 50), percentile(visible, 99), slices.Max(visible), percentile(posted, 50), percentile(posted, 99))
}

// BenchmarkApprovalVisibility is TestApprovalVisibility as a benchmark,
// one approval an iteration, reporting the mean and percentiles of the
// time from the POST to the other replica showing the event Started
// (mean-ms, p50-ms, p99-ms), and those of the POST's own round trip, by
// when the approving replica shows it (post-p50-ms, post-p99-ms). The
// built-in ns/op, which would count the restart before each approval and
// the clean-up after it, is left out.
//
//	go test ./internal/replbench -run '^$' -bench ApprovalVisibility -benchtime 500x
func BenchmarkApprovalVisibility(b *testing.B) {
	v := startVisibility(b)
	var visible, posted []time.Duration
	for b.Loop() {
		s, err := v.sample(b.Context(), len(visible))
		if err != nil {
			b.Fatalf("sample %d: %v", len(visible), err)
		}
		visible, posted = append(visible, s.visible), append(posted, s.posted)
	}
	var total time.Duration
	for _, d := range visible {
		total += d
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(total)/float64(len(visible)), "mean-ms")
	b.ReportMetric(ms(percentile(visible, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(visible, 99)), "p99-ms")
	b.ReportMetric(ms(percentile(posted, 50)), "post-p50-ms")
	b.ReportMetric(ms(percentile(posted, 99)), "post-p99-ms")
}

// visibility is the setup of the measurement: two replicas on a fresh
// embedded etcd, and one VM.
type visibility struct {
	replicas [2]*replica
	vm       forewarn.VMSpec
	client   *http.Client // the VM's
}

// startVisibility starts two replicas on a fresh embedded etcd and creates
// the VM of the measurement, in an availability set.
func startVisibility(tb testing.TB) *visibility {
	tb.Helper()
	endpoint := startEtcd(tb)
	v := &visibility{vm: forewarn.VMSpec{Name: "vis-0", Scope: "vis", Addresses: []string{"127.78.0.1"}}}
	for i := range v.replicas {
		store, name := openEtcd(tb, endpoint)
		v.replicas[i] = startReplica(tb, store, name, fmt.Sprintf("replica-%c", 'a'+i))
	}
	v.client = vmClient(v.vm.Addresses[0])
	tb.Cleanup(v.client.CloseIdleConnections)
	if _, err := v.replicas[0].fab.CreateScope(tb.Context(), forewarn.ScopeSpec{Name: v.vm.Scope}); err != nil {
		tb.Fatal(err)
	}
	if _, err := v.replicas[0].fab.CreateVM(tb.Context(), v.vm); err != nil {
		tb.Fatal(err)
	}
	return v
}

// sample is one measurement.
type sample struct {
	visible time.Duration // from sending the POST to the other replica showing the event Started
	posted  time.Duration // the POST's round trip
}

// sample measures one approval. Sample i approves on replica i%2 and
// watches the other, so that each direction, to and from the leader, has
// half the samples. The VM is restarted through the approving replica, the
// other replica's long-poll is set on the Scheduled document, the approval
// is POSTed, and the time taken until the long-poll returns the event
// Started; then the VM is deleted (which completes the event) and created
// again, for the next sample.
func (v *visibility) sample(ctx context.Context, i int) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, visibleWithin)
	defer cancel()
	a, other := v.replicas[i%2], v.replicas[(i+1)%2]
	e, err := a.fab.Operate(ctx, v.vm.Name, forewarn.OpRestart)
	if err != nil {
		return sample{}, err
	}
	etag, err := awaitStatus(ctx, v.client, other.metaURL, "", e.ID, string(forewarn.Scheduled))
	if err != nil {
		return sample{}, fmt.Errorf("restart not seen on the other replica: %w", err)
	}
	seen := make(chan error, 1)
	var seenAt time.Time
	go func() {
		_, err := awaitStatus(ctx, v.client, other.metaURL, etag, e.ID, string(forewarn.Started))
		seenAt = time.Now()
		seen <- err
	}()
	start := time.Now()
	if err := approve(ctx, v.client, a.metaURL, e.ID); err != nil {
		return sample{}, err
	}
	posted := time.Since(start)
	if err := <-seen; err != nil {
		return sample{}, fmt.Errorf("approval not seen on the other replica: %w", err)
	}
	s := sample{visible: seenAt.Sub(start), posted: posted}
	if err := a.fab.DeleteVM(ctx, v.vm.Name); err != nil {
		return sample{}, err
	}
	_, err = a.fab.CreateVM(ctx, v.vm)
	return s, err
}

// percentile returns the p-th percentile of ds by nearest rank: the
// smallest value that at least p% of ds are not above.
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (len(s)*p + 99) / 100 // ceil(len*p/100)
	return s[max(rank, 1)-1]
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
