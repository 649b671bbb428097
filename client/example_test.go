package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/forewarn/forewarn/client"
)

// exampleService is a tiny stand-in for the metadata service: one Reboot
// event that an approval starts.
type exampleService struct {
	mu          sync.Mutex
	incarnation int
	status      string
}

func (s *exampleService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost {
		s.incarnation, s.status = s.incarnation+1, "Started"
		fmt.Fprint(w, "{}")
		return
	}
	etag := fmt.Sprintf(`"%d"`, s.incarnation)
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	notBefore := "Mon, 19 Sep 2016 18:29:47 GMT"
	if s.status == "Started" {
		notBefore = ""
	}
	fmt.Fprintf(w, `{"DocumentIncarnation":%d,"Events":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297",`+
		`"EventType":"Reboot","ResourceType":"VirtualMachine","Resources":["web-0"],"EventStatus":%q,`+
		`"NotBefore":%q,"Description":"","EventSource":"User","DurationInSeconds":-1}]}`,
		s.incarnation, s.status, notBefore)
}

func newExampleService() *httptest.Server {
	return httptest.NewServer(&exampleService{incarnation: 1, status: "Scheduled"})
}

func ExampleClient_Get() {
	srv := newExampleService() // in a VM: leave out WithEndpoint
	defer srv.Close()
	c := client.New(client.WithEndpoint(srv.URL))

	doc, err := c.Get(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("incarnation", doc.DocumentIncarnation)
	for _, e := range doc.Events {
		fmt.Println(e.EventType, e.EventStatus, e.NotBefore.Format(time.RFC3339), "hits web-0:", e.Hits("web-0"))
	}
	// Output:
	// incarnation 1
	// Reboot Scheduled 2016-09-19T18:29:47Z hits web-0: true
}

func ExampleClient_Watch() {
	srv := newExampleService()
	defer srv.Close()
	c := client.New(client.WithEndpoint(srv.URL), client.WithPollInterval(10*time.Millisecond))
	errDone := errors.New("done")

	err := c.Watch(context.Background(), func(doc *client.Document) error {
		for _, e := range doc.Events {
			fmt.Println(doc.DocumentIncarnation, e.EventType, e.EventStatus)
			if !e.Hits("web-0") {
				continue
			}
			if e.EventStatus == client.EventStatusStarted {
				return errDone // a real agent would keep watching
			}
			// Drain, then let the maintenance start now.
			if err := c.Approve(context.Background(), e.EventId); err != nil {
				return err
			}
		}
		return nil
	})
	fmt.Println("watch ended:", err)
	// Output:
	// 1 Reboot Scheduled
	// 2 Reboot Started
	// watch ended: done
}

func ExampleEvent_Hits() {
	e := client.Event{Resources: []string{"web-0", "web-3"}}
	fmt.Println(e.Hits("WEB-0"), e.Hits("web-1"))
	// Output: true false
}

// DiscoverEndpoint reads the host endpoint of a VM outside a virtual
// network from its DHCP lease (option 245); called without files it reads
// the usual lease files of dhclient and systemd-networkd.
func ExampleDiscoverEndpoint() {
	endpoint, err := client.DiscoverEndpoint("testdata/leases/dhclient.eth0.leases")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(endpoint)
	// Output: http://168.63.129.16
}
