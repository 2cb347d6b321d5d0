namespace BackupXe.SqlServer.Client;

/// <summary>
/// Where a password comes from: an environment variable, else an interactive prompt. Never a command-line
/// argument, which other users can read from the process list and shells keep in their history.
/// </summary>
public sealed class PasswordSource(Func<string, string?> environment, Func<string, string?>? prompt)
{
    /// <summary>The variable read when the user names none.</summary>
    public const string DefaultVariable = "BACKUPXE_SQL_PASSWORD";

    /// <summary>Reads the process environment and prompts on the console when it is interactive.</summary>
    public static PasswordSource FromConsole() => new(
        Environment.GetEnvironmentVariable,
        Console.IsInputRedirected ? null : ReadHidden);

    /// <summary>The password, or null with <paramref name="problem"/> saying what to do.</summary>
    public string? Obtain(string variable, string userName, out string? problem)
    {
        var fromEnvironment = environment(variable);
        if (!string.IsNullOrEmpty(fromEnvironment))
        {
            problem = null;
            return fromEnvironment;
        }

        if (prompt is not null)
        {
            var typed = prompt($"Password for {userName}: ");
            if (!string.IsNullOrEmpty(typed))
            {
                problem = null;
                return typed;
            }
        }

        problem = $"no password for {userName}: set the environment variable {variable} (input is not interactive, so BackupXe cannot prompt).";
        return null;
    }

    private static string? ReadHidden(string label)
    {
        Console.Error.Write(label);
        var typed = new System.Text.StringBuilder();
        while (true)
        {
            var key = Console.ReadKey(intercept: true);
            if (key.Key == ConsoleKey.Enter)
            {
                Console.Error.WriteLine();
                return typed.ToString();
            }

            if (key.Key == ConsoleKey.Backspace)
            {
                if (typed.Length > 0)
                {
                    typed.Length--;
                }

                continue;
            }

            if (!char.IsControl(key.KeyChar))
            {
                typed.Append(key.KeyChar);
            }
        }
    }
}
