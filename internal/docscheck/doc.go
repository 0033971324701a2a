// Package docscheck holds the checks of the project's Markdown documents:
// every relative link points at a file of the repository, and every
// #anchor at a heading of it.
package docscheck
