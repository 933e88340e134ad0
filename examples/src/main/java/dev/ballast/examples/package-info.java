/**
 * The README's examples, one per entry point; the README quotes them and {@code
 * ReadmeSnippetsTest} checks that every java block it holds is found here.
 */
package dev.ballast.examples;
