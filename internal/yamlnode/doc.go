// Package yamlnode reads a YAML file node by node, as the fleet file and
// the drill file are read: every fault found is collected as a Problem
// placed by line and column, with the path of its field, so that a user
// sees all of them at once.
package yamlnode
