package fmu

import "strconv"

// Status is an FMI 2.0 fmi2Status; the values equal the C enumeration.
type Status int

// The fmi2Status values.
const (
	OK      Status = 0
	Warning Status = 1
	Discard Status = 2
	Error   Status = 3
	Fatal   Status = 4
	Pending Status = 5
)

// String returns the C name of the status (fmi2OK, ...).
func (s Status) String() string {
	switch s {
	case OK:
		return "fmi2OK"
	case Warning:
		return "fmi2Warning"
	case Discard:
		return "fmi2Discard"
	case Error:
		return "fmi2Error"
	case Fatal:
		return "fmi2Fatal"
	case Pending:
		return "fmi2Pending"
	}
	return "fmi2Status(" + strconv.Itoa(int(s)) + ")"
}

// StatusKind is an FMI 2.0 fmi2StatusKind (the argument of fmi2Get*Status).
type StatusKind int

// The fmi2StatusKind values.
const (
	DoStepStatus       StatusKind = 0
	PendingStatus      StatusKind = 1
	LastSuccessfulTime StatusKind = 2
	Terminated         StatusKind = 3
)

// String returns the C name of the status kind.
func (k StatusKind) String() string {
	switch k {
	case DoStepStatus:
		return "fmi2DoStepStatus"
	case PendingStatus:
		return "fmi2PendingStatus"
	case LastSuccessfulTime:
		return "fmi2LastSuccessfulTime"
	case Terminated:
		return "fmi2Terminated"
	}
	return "fmi2StatusKind(" + strconv.Itoa(int(k)) + ")"
}

// Phase is a state of the FMI 2.0 co-simulation state machine.
type Phase uint8

// The phases of an instance. There is no step-in-progress phase: fmi2DoStep
// is synchronous.
const (
	Instantiated Phase = iota
	InitializationMode
	StepComplete
	StepFailed
	StepCanceled
	TerminatedPhase
	ErrorPhase
	FatalPhase
	// IntermediateUpdate is FMI 3.0's intermediate update mode: inside
	// fmi3DoStep, while the master's callback runs at an internal step
	// (fmi3.go); inputs may be set and values read.
	IntermediateUpdate
)

// String names the phase as the standard's state diagram does.
func (p Phase) String() string {
	switch p {
	case Instantiated:
		return "instantiated"
	case InitializationMode:
		return "initializationMode"
	case StepComplete:
		return "stepComplete"
	case StepFailed:
		return "stepFailed"
	case StepCanceled:
		return "stepCanceled"
	case TerminatedPhase:
		return "terminated"
	case ErrorPhase:
		return "error"
	case FatalPhase:
		return "fatal"
	case IntermediateUpdate:
		return "intermediateUpdateMode"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// phaseSet is a set of phases in which a function may be called.
type phaseSet uint16

func (s phaseSet) has(p Phase) bool { return s&(1<<p) != 0 }

// The phases in which each group of functions is allowed (FMI 2.0 section
// 4.2.4, state machine of the co-simulation slave).
const (
	anyPhase phaseSet = 1<<Instantiated | 1<<InitializationMode | 1<<StepComplete |
		1<<StepFailed | 1<<StepCanceled | 1<<TerminatedPhase | 1<<ErrorPhase
	getPhases phaseSet = 1<<InitializationMode | 1<<StepComplete | 1<<StepFailed |
		1<<StepCanceled | 1<<TerminatedPhase | 1<<ErrorPhase | 1<<IntermediateUpdate
	setPhases     phaseSet = 1<<Instantiated | 1<<InitializationMode | 1<<StepComplete | 1<<IntermediateUpdate
	statusPhases  phaseSet = 1<<StepComplete | 1<<StepFailed | 1<<StepCanceled | 1<<TerminatedPhase
	termPhases    phaseSet = 1<<StepComplete | 1<<StepFailed | 1<<StepCanceled
	instPhase     phaseSet = 1 << Instantiated
	initPhase     phaseSet = 1 << InitializationMode
	stepPhase     phaseSet = 1 << StepComplete
	setDerivPhase phaseSet = 1<<Instantiated | 1<<InitializationMode | 1<<StepComplete
	getDerivPhase phaseSet = 1<<StepComplete | 1<<StepFailed | 1<<StepCanceled | 1<<TerminatedPhase | 1<<ErrorPhase
)

// Log categories declared in modelDescription.xml.
const (
	LogEvents        = "logEvents"
	LogSolver        = "logSolver"
	LogStatusWarning = "logStatusWarning"
	LogStatusDiscard = "logStatusDiscard"
	LogStatusError   = "logStatusError"
	LogStatusFatal   = "logStatusFatal"
	LogAll           = "logAll"
)

// logCategory is a declared log category.
type logCategory struct{ name, desc string }

// logCategories lists the log categories with their descriptions, in the
// order they are declared in modelDescription.xml.
func logCategories() [7]logCategory {
	return [7]logCategory{
		{LogEvents, "FMI calls that change the instance's state (initialisation, termination, reset, state restore)"},
		{LogSolver, "solver statistics (steps, Newton iterations, factorisations)"},
		{LogStatusWarning, "calls that return fmi2Warning"},
		{LogStatusDiscard, "calls that return fmi2Discard (a failed step)"},
		{LogStatusError, "calls that return fmi2Error (wrong state, bad argument, engine error)"},
		{LogStatusFatal, "calls that return fmi2Fatal"},
		{LogAll, "all of the above"},
	}
}

// logMask is a set of enabled log categories (bit i = logCategories()[i]).
type logMask uint8

const (
	catEvents logMask = 1 << iota
	catSolver
	catWarning
	catDiscard
	catError
	catFatal
	catAll
)

// categoryBit returns the bit of a category name.
func categoryBit(name string) (logMask, bool) {
	for i, c := range logCategories() {
		if c.name == name {
			return 1 << i, true
		}
	}
	return 0, false
}

func (m logMask) on(c logMask) bool { return m&(c|catAll) != 0 }

// statusCategory is the category a message of the given status is logged in.
func statusCategory(s Status) logMask {
	switch s {
	case Warning:
		return catWarning
	case Discard:
		return catDiscard
	case Error:
		return catError
	case Fatal:
		return catFatal
	}
	return catEvents
}

func categoryName(c logMask) string {
	for i, lc := range logCategories() {
		if c == 1<<i {
			return lc.name
		}
	}
	return LogAll
}
