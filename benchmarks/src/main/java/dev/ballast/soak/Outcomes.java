package dev.ballast.soak;

import io.grpc.Status;
import java.util.concurrent.CompletionException;

/** Names a call's outcome for the soak's table. */
final class Outcomes {

  private Outcomes() {}

  /** "ok", or the failure's class (a gRPC status by its code). */
  static String of(Throwable err) {
    if (err == null) {
      return "ok";
    }
    Throwable t = err instanceof CompletionException && err.getCause() != null
        ? err.getCause() : err;
    Status status = Status.fromThrowable(t);
    if (status.getCode() != Status.Code.UNKNOWN) {
      return "grpc " + status.getCode();
    }
    return t.getClass().getSimpleName();
  }
}
