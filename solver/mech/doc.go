// Package mech holds what the engine and its elements share: rotation
// algebra on SO(3) (unit quaternions, rotation vectors, the exponential
// map and its tangent operator) used by spatial bodies and joints.
package mech
