// Package hubtest holds `make hub-test`: the course cycle through a real
// JupyterHub on this machine, with local users, PAM logins, the agx exchange,
// the grader and a headless browser (hub_test.go; docs/lab.md, "Many users on
// one machine"). It has no code of its own besides the test: hubdrive.py
// drives a student's server through the Hub's REST API and a kernel's
// websocket, browser/student.js drives Chromium.
package hubtest
