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
// The format's elements and attributes are tables: schema (schema.go) for
// planar models and schema3 (schema3d.go) for spatial ones, chosen by
// <model dimension="3">. The parser (parse.go) is generic over them; the
// rules of single elements are in checks.go and checks3d.go.
package xml
