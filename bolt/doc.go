// Package bolt is the embedded forewarn.Store: one bbolt file in the data
// directory holds the scopes, VMs, events in flight, the history of finished
// events and a few settings.
//
// The package owns the file's layout. Its buckets are:
//
//	meta     settings (PutMeta), and "schema-version", the layout's version
//	scopes   one JSON forewarn.Scope per lowercased name
//	vms      one JSON forewarn.VM per lowercased name
//	events   one JSON forewarn.Event per lowercased id, events in flight only
//	history  finished events, keyed by a big-endian sequence number
//	campaigns        one JSON forewarn.Campaign per lowercased id, without
//	                 its progress
//	campaign-plans   the scopes each campaign walks, with their update
//	                 domains, written once
//	campaign-scopes  the progress of each scope of a campaign that moved
//	                 from where its plan has it, keyed "<id>/<i>", i
//	                 zero-padded to 8 digits
//	vms-by-scope, events-by-scope, vms-by-address  the indexes: the key
//	                 "<group>/<member>", the value the member's key
//
// Names and ids are stored lowercased in keys, so they are unique
// case-insensitively; the records keep the case they were written with.
//
// Open writes the schema version into a new file and checks it on every
// open: a file written by a newer release is refused with an error wrapping
// forewarn.ErrSchema. Every Update that returns nil is synced to disk before
// it returns, so it survives a crash. The file is locked while open: a second
// process gets an error instead of waiting forever.
package bolt
