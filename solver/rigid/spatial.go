package rigid

import (
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// SpatialBodies compiles the ground markers and bodies of a spatial model.
func SpatialBodies(b mech.Builder, ms *spec.Model) {
	b.Errorf(ms.Pos, "dimension", "spatial models: in progress")
}

// SpatialJoint compiles a spatial joint.
func SpatialJoint(b mech.Builder, j spec.Joint) {}

// SpatialDriver compiles a spatial driver.
func SpatialDriver(b mech.Builder, d spec.Driver) {}

// SpatialForce compiles a spatial force element.
func SpatialForce(b mech.Builder, f spec.Force) {}
