package imds

import (
	"net/http"
	"strings"
)

// route is one of the paths the endpoint serves.
type route int

const (
	routeNone route = iota
	routeEvents
	routeInstance
	routeVersions
)

const (
	pathEvents   = "/metadata/scheduledevents"
	pathInstance = "/metadata/instance"
	pathVersions = "/metadata/versions"
)

// parseRoute finds the route of a request path, and for instance metadata the
// segments below /metadata/instance. One trailing slash is allowed.
func parseRoute(path string) (route, []string) {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	switch path {
	case pathEvents:
		return routeEvents, nil
	case pathVersions:
		return routeVersions, nil
	case pathInstance:
		return routeInstance, nil
	}
	if rest, ok := strings.CutPrefix(path, pathInstance+"/"); ok {
		return routeInstance, strings.Split(rest, "/")
	}
	return routeNone, nil
}

// allow is the value of the Allow header of the route.
func (rt route) allow() string {
	if rt == routeEvents {
		return "GET, POST"
	}
	return "GET"
}

// allows reports whether the route serves the method.
func (rt route) allows(method string) bool {
	return method == http.MethodGet || rt == routeEvents && method == http.MethodPost
}

// label names the route in metrics.
func (rt route) label() string {
	switch rt {
	case routeEvents:
		return pathEvents
	case routeInstance:
		return pathInstance
	case routeVersions:
		return pathVersions
	}
	return "other"
}
