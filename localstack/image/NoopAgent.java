// The Java agent LocalStack starts DynamoDB Local with (`-javaagent:...`).
// LocalStack downloads its own from GitHub (a class rewriter raising DynamoDB
// Local's limit of 20 global secondary indexes per table); nothing can be
// downloaded here, and the template's tables have at most a few indexes, so
// this agent does nothing: it only has to exist for the JVM to start.
public class NoopAgent {
    public static void premain(String args, java.lang.instrument.Instrumentation inst) {}
}
