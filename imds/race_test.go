package imds

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentPublishAndGet publishes from several goroutines while VMs
// read their documents and long-poll. Run under -race. Each answer must be
// consistent (ETag and DocumentIncarnation agree) and no VM may see its
// incarnation go back.
func TestConcurrentPublishAndGet(t *testing.T) {
	e := mustStartEnv(t)
	var incarnation atomic.Int64
	incarnation.Store(4)
	stop := make(chan struct{})
	var publishers sync.WaitGroup
	for range 3 {
		publishers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				snap := webSnapshot(incarnation.Add(1))
				snap.Events = snap.Events[:int(snap.Scope.Incarnation%10)]
				e.srv.PublishScope(snap)
				db := dbSnapshot()
				db.Scope.Incarnation = snap.Scope.Incarnation
				e.srv.PublishScope(db)
			}
		})
	}

	var readers sync.WaitGroup
	for _, src := range []string{addrWeb0, addrWeb1, addrDB0} {
		readers.Go(func() {
			last := int64(0)
			for i := range 60 {
				q := []string{eventsURL(eventVersions[i%len(eventVersions)].name)}
				if i%3 == 0 {
					q[0] = eventsURL("2020-07-01", "wait_for_change=true&last_etag="+strconv.FormatInt(last, 10))
				}
				a := e.get(t, src, q[0])
				if a.status != http.StatusOK {
					t.Errorf("%s: status %d: %s", src, a.status, a.body)
					return
				}
				var doc struct{ DocumentIncarnation int64 }
				if err := json.Unmarshal([]byte(a.body), &doc); err != nil {
					t.Errorf("%s: %v", src, err)
					return
				}
				if etag := `"` + strconv.FormatInt(doc.DocumentIncarnation, 10) + `"`; a.header.Get("ETag") != etag {
					t.Errorf("%s: ETag %s for incarnation %d", src, a.header.Get("ETag"), doc.DocumentIncarnation)
				}
				if doc.DocumentIncarnation < last {
					t.Errorf("%s: incarnation went back from %d to %d", src, last, doc.DocumentIncarnation)
				}
				last = doc.DocumentIncarnation
			}
		})
	}
	readers.Wait()
	close(stop)
	publishers.Wait()
}
