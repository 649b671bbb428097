// Package linkaddr puts an address on the loopback device for the metadata
// endpoint (serve --assign-address), over netlink, and takes it away again
// at exit only if it added it itself. Linux only; it needs CAP_NET_ADMIN.
package linkaddr
