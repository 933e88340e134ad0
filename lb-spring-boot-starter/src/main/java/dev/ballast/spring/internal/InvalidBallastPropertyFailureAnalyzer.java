package dev.ballast.spring.internal;

import dev.ballast.spring.InvalidBallastPropertyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InvalidBallastPropertyException} anywhere in a start-up failure's causes into
 * a report naming the property, its value, what is wrong and the expected form. Registered in
 * {@code META-INF/spring.factories}.
 */
public final class InvalidBallastPropertyFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidBallastPropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidBallastPropertyException cause) {
    String value = cause.value() == null ? "(empty)" : "\"" + cause.value() + "\"";
    String description = "Invalid Ballast property '" + cause.property() + "':\n\n"
        + "    Property: " + cause.property() + "\n"
        + "    Value: " + value + "\n"
        + "    Reason: " + cause.reason();
    String action = "Update '" + cause.property() + "' in your application's configuration to "
        + cause.expected() + ".";
    return new FailureAnalysis(description, action, cause);
  }
}
