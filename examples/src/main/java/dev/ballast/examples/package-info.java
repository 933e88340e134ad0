/**
 * The examples that README.md and docs/ quote, one per entry point; {@code DocsSnippetsTest}
 * checks that every java block there is found in a file here.
 */
package dev.ballast.examples;
