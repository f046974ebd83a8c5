package solver

// contacts compiles contact pairs.
func (c *compiler) contacts() {
	for _, k := range c.spec.Contacts {
		c.errf(k.Pos, "kind", "contact %q: contacts are not available in this build", k.Name)
	}
}
