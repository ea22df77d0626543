// replaced by the openb trace reader (issue 3)
