package admin

// SetPageSize sets the page that c's listings of everything ask for at a
// time, so that a test sees them follow pages without 10,000 VMs.
func SetPageSize(c *Client, n int) { c.pageSize = n }
