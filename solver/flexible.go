package solver

// flexible compiles flexible bodies (beams).
func (c *compiler) flexible() {
	for _, b := range c.spec.Beams {
		c.errf(b.Pos, "kind", "beam %q: flexible bodies are not available in this build", b.Name)
	}
}
