package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// clusterBinary returns the etcd binary: $FOREWARN_ETCD_BIN, else etcd on
// PATH. Without one the test is skipped, or fails if
// FOREWARN_REQUIRE_ETCD=1.
func clusterBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("FOREWARN_ETCD_BIN"); bin != "" {
		return bin
	}
	bin, err := exec.LookPath("etcd")
	if err == nil {
		return bin
	}
	const msg = "no etcd binary on PATH nor in $FOREWARN_ETCD_BIN: run scripts/deps.sh (it installs Debian's etcd-server)"
	if os.Getenv("FOREWARN_REQUIRE_ETCD") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// cluster is a three-member etcd cluster of real etcd processes on free
// loopback ports, and a client of it.
type cluster struct {
	members []*clusterMember
	client  *clientv3.Client
}

// clusterMember is one etcd process of a cluster.
type clusterMember struct {
	name, clientAddr, peerAddr string
	id                         uint64 // its member id, known once the cluster is up
	cmd                        *exec.Cmd
	exited                     chan error
	log                        *syncLog
	dead                       bool
}

// clusterStart starts a new three-member cluster, each member in its own
// temporary directory, and waits until it has a raft leader. The members
// are killed at the end of the test.
func clusterStart(t *testing.T, bin string) *cluster {
	t.Helper()
	return clusterOf(t, bin, 3)
}

// clusterOf is clusterStart with n members.
func clusterOf(t *testing.T, bin string, n int) *cluster {
	t.Helper()
	c := &cluster{}
	var initial []string
	for i := range n {
		m := &clusterMember{name: fmt.Sprintf("m%d", i+1), clientAddr: freeAddr(t), peerAddr: freeAddr(t),
			exited: make(chan error, 1), log: &syncLog{}}
		c.members = append(c.members, m)
		initial = append(initial, m.name+"=http://"+m.peerAddr)
	}
	token := fmt.Sprintf("forewarn-failover-%d", rand.Int64())
	for _, m := range c.members {
		m.start(t, bin, strings.Join(initial, ","), token)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(c.endpoints(), ","),
		DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { client.Close() })
	c.client = client
	eventually(t, 60*time.Second, "a healthy etcd cluster", func() bool {
		for _, m := range c.members {
			st, err := c.status(m)
			if err != nil || st.Leader == 0 {
				return false
			}
			m.id = st.Header.MemberId
		}
		return true
	})
	return c
}

// start starts the member's etcd process.
func (m *clusterMember) start(t *testing.T, bin, initial, token string) {
	t.Helper()
	m.cmd = exec.Command(bin, "--name", m.name, "--data-dir", filepath.Join(t.TempDir(), "data"),
		"--listen-client-urls", "http://"+m.clientAddr, "--advertise-client-urls", "http://"+m.clientAddr,
		"--listen-peer-urls", "http://"+m.peerAddr, "--initial-advertise-peer-urls", "http://"+m.peerAddr,
		"--initial-cluster", initial, "--initial-cluster-state", "new", "--initial-cluster-token", token,
		"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn")
	m.cmd.Stdout, m.cmd.Stderr = m.log, m.log
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start etcd %s: %v", m.name, err)
	}
	go func() { m.exited <- m.cmd.Wait() }()
	t.Cleanup(func() {
		m.cmd.Process.Kill()
		<-m.exited
		if t.Failed() {
			t.Logf("etcd %s log:\n%s", m.name, m.log.String())
		}
	})
}

// pause stops the member's process with SIGSTOP: it keeps its
// connections open and answers nothing. It is continued on cleanup, if the
// test has not continued it.
func (m *clusterMember) pause(t *testing.T) {
	t.Helper()
	if err := m.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("stop etcd %s: %v", m.name, err)
	}
	t.Cleanup(func() { m.cmd.Process.Signal(syscall.SIGCONT) })
}

// resume continues the member's process after pause.
func (m *clusterMember) resume(t *testing.T) {
	t.Helper()
	if err := m.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("continue etcd %s: %v", m.name, err)
	}
}

// endpoints returns the members' client addresses, comma-separated.
func (c *cluster) endpoints() string {
	var addrs []string
	for _, m := range c.members {
		addrs = append(addrs, m.clientAddr)
	}
	return strings.Join(addrs, ",")
}

// status asks one member how it stands.
func (c *cluster) status(m *clusterMember) (*clientv3.StatusResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.client.Status(ctx, m.clientAddr)
}

// leader returns the raft leader as the first live member that knows one
// tells, or nil.
func (c *cluster) leader() *clusterMember {
	for _, m := range c.members {
		if m.dead {
			continue
		}
		if st, err := c.status(m); err == nil && st.Leader != 0 {
			for _, l := range c.members {
				if l.id == st.Leader {
					return l
				}
			}
		}
	}
	return nil
}

// killLeader kills etcd's raft leader with SIGKILL, waits until the others
// have elected a new one, and returns the name of the member killed and
// how long the election took.
func (c *cluster) killLeader(t *testing.T) (string, time.Duration) {
	t.Helper()
	var victim *clusterMember
	eventually(t, 30*time.Second, "etcd's raft leader", func() bool { victim = c.leader(); return victim != nil })
	killed := time.Now()
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-victim.exited:
		victim.exited <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatalf("etcd %s did not exit on SIGKILL", victim.name)
	}
	victim.dead = true
	eventually(t, 60*time.Second, "etcd's new raft leader", func() bool {
		l := c.leader()
		return l != nil && l != victim
	})
	return victim.name + "(raft-leader)", time.Since(killed)
}
