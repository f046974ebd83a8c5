// Package xml reads mbfmu model files into a spec.Model.
//
// A model file is an XML document rooted at <model>; the format is
// described in docs/model-format.md. Parse and LoadFile check everything
// that can be checked without compiling expressions (unknown elements and
// attributes, units and their dimensions, numbers, vectors, names,
// references between elements) and report every problem at once as a
// spec.ErrorList with file:line and attribute. Numbers with units are
// converted to SI; expressions are kept as text in spec.Expr for the
// solver to compile.
//
// The format's elements and attributes are one table, built by schema in
// schema.go.
package xml
